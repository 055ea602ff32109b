package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseStandalone(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		env      string // IDEMLINT_DRIVER
		fallback string // prefix; "" for the go vet driver
		analyzer []string
		patterns []string
		json     bool
		tags     string
	}{
		{args: []string{"./..."}, patterns: []string{"./..."}},
		{args: []string{"-json", "-c=2", "-test", "-strict", "-iface", "verbs", "-effects=a.B", "-vetx-report", "./a", "b"},
			json: true, analyzer: []string{"-effects=a.B", "-iface=verbs", "-strict=true"}, patterns: []string{"./a", "b"}},
		{args: []string{"-tags", "x,y", "std"}, tags: "x,y", patterns: []string{"std"}},
		{args: []string{"-source", "-v", "-all", "./..."}, patterns: []string{"./..."}},
		{args: []string{"-fix", "./..."}, fallback: "-fix"},
		{args: []string{"-fix", "-diff", "./..."}, fallback: "-diff"},
		{args: []string{"-test=false", "./..."}, patterns: []string{"./..."}},
		{args: []string{"-modular", "-test=false", "./..."}, fallback: "-test=false"},
		{args: []string{"-cpuprofile=x", "./..."}, fallback: "-cpuprofile"},
		{args: []string{"-memprofile", "x", "./..."}, fallback: "-memprofile"},
		{args: []string{"-trace=x", "./..."}, fallback: "-trace"},
		{args: []string{"-debug=t", "./..."}, fallback: "-debug"},
		{args: []string{"-V=full"}, fallback: "-V"},
		{args: []string{"-flags"}, fallback: "-flags"},
		{args: []string{"-nosuchflag", "./..."}, fallback: "flags:"},
		{args: []string{"-h"}, fallback: "flags:"},
		{args: nil, fallback: "usage"},
		{args: []string{"help", "idemlint"}, fallback: "usage"},
		{args: []string{"a.go", "b.go"}, fallback: "pattern a.go"},
		{args: []string{"file=x/y.go"}, fallback: "pattern file="},
		{args: []string{"./..."}, env: "packages", fallback: "IDEMLINT_DRIVER=packages"},
		{args: []string{"./..."}, env: "vet", patterns: []string{"./..."}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv("IDEMLINT_DRIVER", tc.env)
			s := parseStandalone(tc.args)
			if tc.fallback != "" {
				if !strings.HasPrefix(s.fallback, tc.fallback) {
					t.Errorf("fallback %q, want %q…", s.fallback, tc.fallback)
				}
				return
			}
			if s.fallback != "" || s.json != tc.json || s.tags != tc.tags ||
				!slices.Equal(s.analyzer, tc.analyzer) || !slices.Equal(s.patterns, tc.patterns) {
				t.Errorf("got %+v", s)
			}
		})
	}
}

func TestVetUnitAndFlag(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		unit   bool
		report bool
	}{
		{args: []string{"-json", "-vetx-report", "/w/b001/vet.cfg"}, unit: true, report: true},
		{args: []string{"--vetx-report=true", "x.cfg"}, unit: true, report: true},
		{args: []string{"-vetx-report=false", "x.cfg"}, unit: true},
		{args: []string{"-vetx-report", "-vetx-report=0", "x.cfg"}, unit: true},
		{args: []string{"-json", "x.cfg"}, unit: true},
		{args: []string{"./...", "x.cfg"}},
		{args: []string{"-V=full"}},
		{args: []string{"-vetx-report", "./..."}, report: true},
		{args: nil},
	} {
		_, unit := vetUnit(tc.args)
		if report := flagSet(tc.args, reportFlag); unit != tc.unit || report != tc.report {
			t.Errorf("%q: unit %v, report %v; want %v, %v", tc.args, unit, report, tc.unit, tc.report)
		}
	}
}

func TestReportingConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cfg map[string]any) string {
		data, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := map[string]any{"ID": "a", "GoFiles": []string{"a.go"}, "VetxOnly": true, "VetxOutput": "/w/vet.out", "FutureField": 7.0}
	orig := write("vet.cfg", cfg)
	got, err := reportingConfig(orig)
	if err != nil || got == orig || filepath.Dir(got) != dir || !strings.HasSuffix(got, ".cfg") {
		t.Fatalf("reportingConfig(VetxOnly) = %q, %v", got, err)
	}
	var back map[string]any
	data, _ := os.ReadFile(got)
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	cfg["VetxOnly"] = false
	for k, v := range cfg {
		if !strings.EqualFold(strings.TrimSpace(jsonText(t, back[k])), jsonText(t, v)) {
			t.Errorf("%s: %v, want %v", k, back[k], v)
		}
	}
	if len(back) != len(cfg) {
		t.Errorf("fields %v, want %v", back, cfg)
	}

	delete(cfg, "VetxOnly")
	plain := write("plain.cfg", cfg)
	if got, err := reportingConfig(plain); got != plain || err != nil {
		t.Errorf("reportingConfig(not VetxOnly) = %q, %v; want the file itself", got, err)
	}
	if got, err := reportingConfig(filepath.Join(dir, "missing.cfg")); err == nil || !strings.HasSuffix(got, "missing.cfg") {
		t.Errorf("reportingConfig(missing) = %q, %v", got, err)
	}
}

func jsonText(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCollect(t *testing.T) {
	d := func(posn, msg string) string {
		return `{"category":"IDEM001","posn":"` + posn + `","end":"` + posn + `","message":"` + msg + `"}`
	}
	stream := `{"ex/a": {"idemlint": [` + d("/m/a/a.go:7:32", "in a") + `]}}
{"ex/dep": {"idemlint": [` + d("/m/dep/dep.go:1:1", "in a dependency") + `]}}
{"ex/a": {"idemlint": [` + d("/m/a/a.go:7:32", "in a") + `,` + d("/m/a/a_test.go:4:1", "in a's test") + `]}}
{"ex/a_test": {"idemlint": [` + d("/m/a/x_test.go:6:1", "in a's external test") + `]}}
{"ex/b [ex/c.test]": {"idemlint": [` + d("/m/b/b.go:2:1", "in b") + `]}}
{"ex/b [ex/b.test]": {"idemlint": [` + d("/m/b/b.go:2:1", "in b") + `]}}
{"ex/c": {"idemlint": {"error": "boom"}}}
{"ex/clean": {}}
`
	found := 0
	units, err := decodeUnits(strings.NewReader(stream), func() { found++ })
	if err != nil || found != 7 || len(units) != 7 {
		t.Fatalf("decodeUnits: %d units, %d found, %v", len(units), found, err)
	}
	res, err := collect(units, map[string]bool{"ex/a": true, "ex/b": true, "ex/c": true, "ex/clean": true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeUnits(strings.NewReader(stream+"{x"), func() {}); err == nil {
		t.Errorf("decodeUnits: no error on a broken stream")
	}
	var got []string
	for _, d := range res.diags {
		got = append(got, d.id+" "+d.Posn+" "+d.Message)
	}
	slices.Sort(got)
	want := []string{
		"ex/a /m/a/a.go:7:32 in a",
		"ex/a /m/a/a_test.go:4:1 in a's test",
		"ex/a_test /m/a/x_test.go:6:1 in a's external test",
		"ex/b [ex/b.test] /m/b/b.go:2:1 in b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("collect:\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if len(res.errors) != 1 || res.errors[0].Err != "boom" || res.errors[0].id != "ex/c" {
		t.Errorf("errors %+v", res.errors)
	}

	var text strings.Builder
	res.printText(&text, -1)
	wantText := "idemlint: boom\n" +
		"/m/a/a.go:7:32: in a\n/m/a/a_test.go:4:1: in a's test\n/m/a/x_test.go:6:1: in a's external test\n/m/b/b.go:2:1: in b\n"
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant\n%s", text.String(), wantText)
	}

	var js strings.Builder
	if err := res.printJSON(&js); err != nil {
		t.Fatal(err)
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js.String()), &tree); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if len(tree) != 4 || !strings.Contains(string(tree["ex/c"]["idemlint"]), `"error": "boom"`) {
		t.Errorf("json:\n%s", js.String())
	}
	if !strings.Contains(js.String(), "\t\t\t{\n\t\t\t\t\"category\": \"IDEM001\",\n\t\t\t\t\"posn\": \"/m/a/a.go:7:32\"") {
		t.Errorf("json not indented like the x/tools drivers':\n%s", js.String())
	}
}

func TestParsePosn(t *testing.T) {
	for s, want := range map[string]posn{
		"/a/b.go:3:4":   {"/a/b.go", 3, 4},
		"c:/a/b.go:3:4": {"c:/a/b.go", 3, 4},
		"/a/b.go:3":     {"/a/b.go", 3, 0},
		"/a/b.go":       {"/a/b.go", 0, 0},
		"-":             {"-", 0, 0},
	} {
		if got := parsePosn(s); got != want {
			t.Errorf("parsePosn(%q) = %+v, want %+v", s, got, want)
		}
	}
}
