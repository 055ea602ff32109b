package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM005 runs the examples of IDEM005's documentation (testdata/src/codes/idem005) through both modes.
func TestIDEM005(t *testing.T) {
	a := analyzer.New(analyzer.Config{Strict: true})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem005")
	checkWholeWith(t, analyzer.Config{Strict: true}, "codes/idem005")
}
