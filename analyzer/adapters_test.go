package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

// TestAdapters: consumers wired through idem's broker adapters are guarded.
func TestAdapters(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "adapters")
}
