package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM007 runs the examples of IDEM007's documentation (testdata/src/codes/idem007) through both modes.
func TestIDEM007(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem007")
	checkWholeWith(t, analyzer.Config{}, "codes/idem007")
}
