package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestIDEM002 runs the examples of IDEM002's documentation (testdata/src/codes/idem002) through both modes.
func TestIDEM002(t *testing.T) {
	a := analyzer.New(analyzer.Config{})
	analysistest.Run(t, analysistest.TestData(), a, "codes/idem002")
	checkWholeWith(t, analyzer.Config{}, "codes/idem002")
}
