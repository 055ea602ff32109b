package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "a", "rabbit", "smsdk", "shop", "saramax", "orders", "js", "redisx", "kafkago", "wm", "ps", "sqsx", "asynqx", "franz", "confluent", "rocket")
}
