package golangci_test

import (
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
	_ "github.com/idemkit/idem/golangci"
)

func newPlugin(t *testing.T, settings any) register.LinterPlugin {
	t.Helper()
	newPlugin, err := register.GetPlugin("idemlint")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(settings)
	if err != nil {
		t.Fatalf("New(%v): %v", settings, err)
	}
	t.Cleanup(func() {
		if _, err := newPlugin(nil); err != nil { // back to the defaults
			t.Error(err)
		}
	})
	return p
}

func TestPlugin(t *testing.T) {
	// Settings as golangci-lint hands them over: decoded YAML.
	p := newPlugin(t, map[string]any{
		"strict":  true,
		"effects": []any{"example.com/sms.Send"},
		"acks":    []any{"example.com/q.Done"},
	})
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
	}
	for name, want := range map[string]string{
		"strict": "true", "publish": "false", "effects": "example.com/sms.Send",
		"acks": "example.com/q.Done", "dedup": "", "iface": "annotated",
	} {
		if got := analyzer.Analyzer.Flags.Lookup(name).Value.String(); got != want {
			t.Errorf("flag -%s = %q, want %q", name, got, want)
		}
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Name != "idemlint" {
		t.Fatalf("BuildAnalyzers() = %v, want [idemlint]", as)
	}
	analysistest.Run(t, analysistest.TestData(), as[0], "sample")
}

func TestPluginDefaults(t *testing.T) {
	p := newPlugin(t, nil)
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), as[0], "sample")
}

func TestPluginBadSettings(t *testing.T) {
	newPlugin, err := register.GetPlugin("idemlint")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []any{
		map[string]any{"strcit": true},   // unknown setting
		map[string]any{"iface": "all"},   // bad value
		map[string]any{"effects": "a,b"}, // a list is expected
	} {
		if _, err := newPlugin(s); err == nil {
			t.Errorf("New(%v): no error", s)
		}
	}
}
