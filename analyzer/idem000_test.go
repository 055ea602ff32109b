package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM000 runs the examples of IDEM000's documentation (testdata/src/codes/idem000) through both modes.
func TestIDEM000(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem000")
	checkWholeWith(t, analyzer.Config{}, "codes/idem000")
}
