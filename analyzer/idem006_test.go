package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM006 runs the examples of IDEM006's documentation (testdata/src/codes/idem006) through both modes.
func TestIDEM006(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem006")
	checkWholeWith(t, analyzer.Config{}, "codes/idem006")
}
