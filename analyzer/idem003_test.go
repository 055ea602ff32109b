package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM003 runs the examples of IDEM003's documentation (testdata/src/codes/idem003) through both modes.
func TestIDEM003(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem003")
	checkWholeWith(t, analyzer.Config{}, "codes/idem003")
}
