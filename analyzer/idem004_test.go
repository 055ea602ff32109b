package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM004 runs the examples of IDEM004's documentation (testdata/src/codes/idem004) through both modes.
func TestIDEM004(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem004")
	checkWholeWith(t, analyzer.Config{}, "codes/idem004")
}
