package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM001 runs the examples of IDEM001's documentation (testdata/src/codes/idem001) through both modes.
func TestIDEM001(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem001")
	checkWholeWith(t, analyzer.Config{}, "codes/idem001")
}
