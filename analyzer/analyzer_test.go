package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "a", "rabbit", "gomqx", "smsdk", "shop", "saramax", "orders", "js", "redisx", "kafkago", "wm", "ps", "sqsx", "asynqx", "franz", "confluent", "rocket", "svc/pg", "svc", "realistic", "orm", "mongowrap", "sqlcx",
		"nsqx", "pulsarx", "gocloudx", "riverx", "daprx", "microx", "azsbx", "sqsv1x", "redislist", "mailx", "notifyx", "entx", "entq", "bunx", "mqttx", "slackx", "popx", "statex", "stanx", "natscore", "bulkx", "grpcx", "archivex", "dpkafkax", "builderx", "lambdax", "clusterx", "embedx", "bunconflict", "squirrelx", "gizmox", "rpcquery", "replacex", "inferx", "lockx", "republish", "gormv1x", "clickhousex", "bookkeepingx", "postgrestx", "casresult", "retryexec")
}

// TestFlags runs package flags with every flag set.
func TestFlags(t *testing.T) {
	fs := &analyzer.Analyzer.Flags
	set := map[string]string{
		"strict":  "true",
		"publish": "true",
		"iface":   "verbs",
		"effects": "(*flags.Ledger).Append",
		"dedup":   "(repo.Orders).TryClaim",
		"acks":    "flags.settle",
	}
	for k, v := range set {
		if err := fs.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for k, v := range map[string]string{"strict": "false", "publish": "false", "iface": "annotated", "effects": "", "dedup": "", "acks": ""} {
			fs.Set(k, v)
		}
	}()
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "repo", "flags")
}
