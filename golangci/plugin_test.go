package golangci_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idem/analyzer"
	_ "github.com/idemkit/idem/golangci"
)

// newPlugin makes a plugin instance through the register API, as
// golangci-lint does.
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
	return p
}

// analyzerOf returns the one analyzer a plugin builds.
func analyzerOf(t *testing.T, p register.LinterPlugin) *analysis.Analyzer {
	t.Helper()
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Name != "idemlint" {
		t.Fatalf("BuildAnalyzers() = %v, want [idemlint]", as)
	}
	return as[0]
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
	a := analyzerOf(t, p)
	for name, want := range map[string]string{
		"strict": "true", "publish": "false", "effects": "example.com/sms.Send",
		"acks": "example.com/q.Done", "dedup": "", "iface": "annotated", "rules": "", "codes": "",
	} {
		if got := a.Flags.Lookup(name).Value.String(); got != want {
			t.Errorf("flag -%s = %q, want %q", name, got, want)
		}
	}
	// The process-wide analyzer is left alone.
	if got := analyzer.Analyzer.Flags.Lookup("strict").Value.String(); got != "false" {
		t.Errorf("analyzer.Analyzer's -strict = %q after New, want false", got)
	}
	analysistest.Run(t, analysistest.TestData(), a, "sample")
}

func TestPluginDefaults(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzerOf(t, newPlugin(t, nil)), "sample")
}

// recorder is an analysistest.Testing that keeps what analysistest would
// report, for packages whose findings depend on the settings (and so have
// no // want comments).
type recorder struct{ errs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// findings runs a on testdata/src/settings and returns its findings as
// "line: CODE", sorted.
func findings(t *testing.T, a *analysis.Analyzer) []string {
	t.Helper()
	var r recorder
	results := analysistest.Run(&r, analysistest.TestData(), a, "settings")
	for _, e := range r.errs {
		if !strings.Contains(e, "unexpected diagnostic") {
			t.Errorf("analysistest: %s", e)
		}
	}
	var got []string
	for _, res := range results {
		if res.Err != nil {
			t.Errorf("analysis: %v", res.Err)
		}
		for _, d := range res.Diagnostics {
			got = append(got, fmt.Sprintf("%d: %s", res.Pass.Fset.Position(d.Pos).Line, d.Category))
		}
	}
	slices.Sort(got)
	return got
}

// TestPluginInstances makes several plugin instances with different
// settings first, then runs each one's analyzer on the same package: each
// reports what its own settings say, whatever was made after it.
func TestPluginInstances(t *testing.T) {
	names := map[string]any{"effects": []any{"settings.Send"}, "acks": []any{"settings.Done"}}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range names {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name     string
		settings map[string]any
		want     []string
	}{
		{"defaults: Send is no effect", nil, nil},
		{"effects and acks", names, []string{"14: IDEM002", "15: IDEM001"}},
		{"codes IDEM001", with(map[string]any{"codes": []any{"IDEM001"}}), []string{"15: IDEM001"}},
		{"codes IDEM002", with(map[string]any{"codes": []any{"IDEM002"}}), []string{"14: IDEM002"}},
		{"a rules file", map[string]any{"rules": filepath.Join("testdata", "rules.yaml")}, []string{"15: IDEM001"}},
	}
	var as []*analysis.Analyzer
	for _, c := range cases {
		as = append(as, analyzerOf(t, newPlugin(t, c.settings)))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := findings(t, as[i]); !slices.Equal(got, c.want) {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

func TestPluginBadSettings(t *testing.T) {
	newPlugin, err := register.GetPlugin("idemlint")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		settings any
		want     string // a part of the error
	}{
		{map[string]any{"strcit": true}, "unknown field"},
		{map[string]any{"iface": "all"}, `iface: want annotated or verbs, not "all"`},
		{map[string]any{"effects": "a,b"}, "cannot unmarshal"}, // a list is expected
		{map[string]any{"codes": []any{"IDEM001", "IDEM009"}}, `codes: unknown code "IDEM009"`},
		{map[string]any{"codes": "IDEM001"}, "cannot unmarshal"},
		{map[string]any{"rules": filepath.Join("testdata", "rules-bad.yaml")},
			filepath.Join("testdata", "rules-bad.yaml") + `:5:11: effects[1].kind: want sql, redis, http, email, mongo or custom, not "ftp"`},
		{map[string]any{"rules": filepath.Join("testdata", "no-such.yaml")}, "no-such.yaml: no such file"},
	} {
		_, err := newPlugin(c.settings)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "idemlint: ") {
			t.Errorf("New(%v): error %v, want one with %q", c.settings, err, c.want)
		}
	}
}
