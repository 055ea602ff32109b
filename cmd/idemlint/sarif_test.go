package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/idemkit/idem/analyzer"
)

// sarifOut is the part of a SARIF log the tests read.
type sarifOut struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					HelpURI              string `json:"helpUri"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Results []struct {
			RuleID    string                `json:"ruleId"`
			RuleIndex int                   `json:"ruleIndex"`
			Level     string                `json:"level"`
			Message   struct{ Text string } `json:"message"`
			Locations []sarifLoc            `json:"locations"`
			Related   []sarifLoc            `json:"relatedLocations"`
		} `json:"results"`
	} `json:"runs"`
}

type sarifLoc struct {
	Message          *struct{ Text string } `json:"message"`
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
			EndLine     int `json:"endLine"`
			EndColumn   int `json:"endColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// where prints a location as "uri:line:col".
func (l sarifLoc) where() string {
	p := l.PhysicalLocation
	return p.ArtifactLocation.URIBaseID + "/" + p.ArtifactLocation.URI + ":" + itoa(p.Region.StartLine) + ":" + itoa(p.Region.StartColumn)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func decodeSARIF(t *testing.T, out string) sarifOut {
	t.Helper()
	var s sarifOut
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("SARIF output does not decode: %v\n%s", err, out)
	}
	if s.Version != "2.1.0" || len(s.Runs) != 1 || s.Runs[0].Tool.Driver.Name != "idemlint" {
		t.Fatalf("SARIF output is not one run of idemlint 2.1.0:\n%s", out)
	}
	return s
}

// sarifSchema compiles the SARIF 2.1.0 schema named by
// IDEM_TEST_SARIF_SCHEMA (.ci/run fetches it from the npm package
// @microsoft/jest-sarif); without it the test fails under CI and is skipped
// elsewhere.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := os.Getenv("IDEM_TEST_SARIF_SCHEMA")
	if path == "" {
		msg := "IDEM_TEST_SARIF_SCHEMA is not set: the SARIF 2.1.0 schema cannot be checked (set it to sarif-2.1.0-rtm.5.json from `npm pack @microsoft/jest-sarif`, lib/schemas/, or run .ci/run, which fetches it)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("file:///sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///sarif-2.1.0.json")
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

func validSARIF(t *testing.T, schema *jsonschema.Schema, out string) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, out)
	}
}

// sarifModule has findings with related positions (an ack before the
// effect it precedes), a column after non-ASCII text, and a file whose
// name needs escaping in a URI.
var sarifModule = map[string]string{
	"a/a.go": `package a

func Write(s string) {}
func Ack()           {}

//idem:handler
func Handle(msg string) { Ack(); Write(msg) }
`,
	"a/ü b.go": `package a

//idem:handler
func Other(msg string) { /* ☃ */ Write(msg) }
`,
}

// TestSARIFSchema runs -format sarif over examples/shop/naive, the
// repository's deliberately unguarded handlers (from the repository root,
// as CI does), and over a module of its own in both drivers, and validates
// every log against the SARIF 2.1.0 schema.
func TestSARIFSchema(t *testing.T) {
	schema := sarifSchema(t)
	bin := idemlint(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The repository's own packages build with the usual build cache.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, root, strings.TrimSpace(string(gocache)), []string{"IDEMLINT_CACHE=off"}, bin, "-format", "sarif", "./examples/shop/naive/")
	if r.code != 3 {
		t.Fatalf("idemlint -format sarif ./examples/shop/naive/: exit %d, want 3 (findings)\n%s", r.code, r.stderr)
	}
	validSARIF(t, schema, r.stdout)
	// The schema does check: a level SARIF does not have is refused.
	bad, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(r.stdout, `"level": "error"`, `"level": "severe"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if schema.Validate(bad) == nil {
		t.Error(`a log with a result of level "severe" passes the schema`)
	}
	s := decodeSARIF(t, r.stdout)
	run0 := s.Runs[0]
	if len(run0.Results) == 0 {
		t.Fatalf("examples/shop/naive: no result\n%s", r.stdout)
	}
	rules := map[string]bool{}
	for _, rule := range run0.Tool.Driver.Rules {
		if rule.HelpURI == "" || rule.ShortDescription.Text == "" || rule.DefaultConfiguration.Level == "" {
			t.Errorf("rule %+v: no helpUri, shortDescription or level", rule)
		}
		rules[rule.ID] = true
	}
	for _, d := range analyzer.Docs() {
		if !rules[string(d.Code)] {
			t.Errorf("no rule for %s", d.Code)
		}
	}
	if len(rules) != len(analyzer.Docs()) {
		t.Errorf("%d rules for %d codes", len(rules), len(analyzer.Docs()))
	}
	for _, res := range run0.Results {
		if !rules[res.RuleID] {
			t.Errorf("result %+v: rule %s is not among the rules", res, res.RuleID)
		}
		for _, l := range append(append([]sarifLoc(nil), res.Locations...), res.Related...) {
			a := l.PhysicalLocation.ArtifactLocation
			if a.URIBaseID != "%SRCROOT%" || strings.HasPrefix(a.URI, "/") || !strings.HasPrefix(a.URI, "examples/shop/naive/") {
				t.Errorf("result %s: location %s, want one relative to %%SRCROOT%%, under examples/shop/naive/", res.RuleID, l.where())
			}
		}
	}
	if got, want := run0.OriginalURIBaseIDs["%SRCROOT%"].URI, "file://"+filepath.ToSlash(root)+"/"; got != want {
		t.Errorf("%%SRCROOT%% = %q, want the repository root %q", got, want)
	}

	dir := writeModule(t, maps(sarifModule))
	modcache := t.TempDir()
	for _, args := range [][]string{{"-format", "sarif"}, {"-format", "sarif", "-modular"}} {
		r := run(t, dir, modcache, nil, bin, append(args, "-acks", "example.com/m/a.Ack", "-effects", "example.com/m/a.Write", "./...")...)
		if r.code != 3 {
			t.Fatalf("idemlint %s: exit %d, want 3\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		validSARIF(t, schema, r.stdout)
	}
}

// TestSARIFLocations checks what the SARIF log says of each finding: its
// rule and level, locations relative to the module root, code point
// columns, and related locations; the same in both drivers.
func TestSARIFLocations(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(sarifModule))
	gocache := t.TempDir()
	var logs []string
	for _, args := range [][]string{{"-format", "sarif"}, {"-format", "sarif", "-modular"}} {
		r := run(t, filepath.Join(dir, "a"), gocache, nil, bin, append(args, "-acks", "example.com/m/a.Ack", "-effects", "example.com/m/a.Write", ".")...)
		if r.code != 3 {
			t.Fatalf("idemlint %s: exit %d, want 3\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		s := decodeSARIF(t, r.stdout)
		run0 := s.Runs[0]
		if got := run0.OriginalURIBaseIDs["%SRCROOT%"].URI; got != "file://"+filepath.ToSlash(dir)+"/" {
			t.Errorf("%%SRCROOT%% = %q, want the module root %s", got, dir)
		}
		var lines []string
		for _, res := range run0.Results {
			rule := run0.Tool.Driver.Rules[res.RuleIndex]
			if rule.ID != res.RuleID || res.Level != rule.DefaultConfiguration.Level || res.Level != "error" || strings.HasSuffix(res.Message.Text, ")") {
				t.Errorf("result %+v: rule %+v", res, rule)
			}
			line := res.RuleID + " " + res.Locations[0].where()
			for _, rel := range res.Related {
				line += " related " + rel.where()
				if rel.Message == nil || rel.Message.Text == "" {
					t.Errorf("related location %+v has no message", rel)
				}
			}
			lines = append(lines, line)
		}
		slices.Sort(lines)
		logs = append(logs, strings.Join(lines, "\n"))
	}
	want := strings.Join([]string{
		// The calls' positions are their parentheses; text mode says
		// "ü b.go:4:41", in bytes.
		"IDEM001 %SRCROOT%/a/%C3%BC%20b.go:4:39",
		"IDEM001 %SRCROOT%/a/a.go:7:39",
		"IDEM002 %SRCROOT%/a/a.go:7:30 related %SRCROOT%/a/a.go:7:39",
	}, "\n")
	for i, got := range logs {
		if got != want {
			t.Errorf("driver %d: results\n%s\nwant\n%s", i, got, want)
		}
	}
}

// TestSARIFFlags checks -format's values, where sarif is refused, and the
// exit code of each format with findings.
func TestSARIFFlags(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(sarifModule))
	gocache := t.TempDir()
	flags := []string{"-acks", "example.com/m/a.Ack", "-effects", "example.com/m/a.Write"}
	for _, c := range []struct {
		args   []string
		env    []string
		code   int
		stderr string // a part of it
		stdout string // its first character
	}{
		{args: []string{"-format", "xml", "./..."}, code: 2, stderr: "want text, json or sarif"},
		{args: []string{"-json", "-format", "sarif", "./..."}, code: 2, stderr: "-json and -format sarif disagree"},
		{args: []string{"-format", "sarif", "-fix", "./..."}, code: 2, stderr: "-format sarif needs the standalone drivers"},
		{args: []string{"-format", "sarif", "a/a.go"}, code: 2, stderr: "not available with pattern a/a.go"},
		{args: []string{"-format", "sarif", "./..."}, env: []string{"IDEMLINT_DRIVER=packages"}, code: 2, stderr: "IDEMLINT_DRIVER=packages"},
		{args: []string{"-format", "text", "./..."}, code: 3, stderr: "(IDEM002)"},
		{args: []string{"-format", "sarif", "./..."}, code: 3, stdout: "{"},
		{args: []string{"-format", "sarif", "-modular", "./..."}, code: 3, stdout: "{"},
		{args: []string{"-format", "json", "./..."}, code: 0, stdout: "{"},
		// The go/packages driver: -format json is its -json.
		{args: []string{"-format", "json", "./..."}, env: []string{"IDEMLINT_DRIVER=packages"}, code: 0, stdout: "{"},
	} {
		args := append(append([]string(nil), flags...), c.args...)
		r := run(t, dir, gocache, c.env, bin, args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.stderr) || !strings.HasPrefix(r.stdout, c.stdout) {
			t.Errorf("%s idemlint %s: exit %d, stderr %q, stdout %.40q; want %d, %q, %q…", strings.Join(c.env, " "), strings.Join(args, " "), r.code, r.stderr, r.stdout, c.code, c.stderr, c.stdout)
		}
		if c.stdout == "{" {
			var tree map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &tree); err != nil || len(tree) == 0 {
				t.Errorf("idemlint %s: stdout is no JSON object: %v", strings.Join(args, " "), err)
			}
		}
	}
}

// TestSARIFCache checks that the result cache keeps findings, not output:
// a text run, then a SARIF run over the same inputs served from the cache,
// print the same findings, and a second SARIF run prints the same log.
func TestSARIFCache(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(sarifModule))
	gocache := t.TempDir()
	path, log := goWrapper(t)
	fullLoad := regexp.MustCompile(`(?m)^list -e -json=.* -export=true `)
	flags := []string{"-acks", "example.com/m/a.Ack", "-effects", "example.com/m/a.Write"}
	var sarifs []string
	for i, c := range []struct {
		format string
		loads  bool // the program is loaded from source: no cached result
	}{{"text", true}, {"sarif", false}, {"sarif", false}, {"json", false}} {
		os.Remove(log)
		r := run(t, dir, gocache, []string{"PATH=" + path}, bin, append(flags, "-format", c.format, "./...")...)
		calls, _ := os.ReadFile(log)
		if loaded := fullLoad.Match(calls); loaded != c.loads {
			t.Errorf("run %d (-format %s): program loaded from source: %v, want %v", i, c.format, loaded, c.loads)
		}
		switch c.format {
		case "text":
			if n := strings.Count(r.stderr, " (IDEM00"); n != 3 || r.code != 3 || !strings.Contains(r.stderr, "ü b.go:4:41: ") {
				t.Errorf("-format text: exit %d, %d findings; want 3 and 3, one at ü b.go:4:41\n%s", r.code, n, r.stderr)
			}
		case "sarif":
			if s := decodeSARIF(t, r.stdout); len(s.Runs[0].Results) != 3 || r.code != 3 {
				t.Errorf("-format sarif: exit %d, %d results; want 3 and 3", r.code, len(s.Runs[0].Results))
			}
			sarifs = append(sarifs, r.stdout)
		case "json":
			if r.code != 0 || strings.Count(r.stdout, `"posn"`) != 4 { // 3 findings, 1 related position
				t.Errorf("-format json: exit %d, %d positions; want 0 and 4\n%s", r.code, strings.Count(r.stdout, `"posn"`), r.stdout)
			}
		}
	}
	if len(sarifs) == 2 && sarifs[0] != sarifs[1] {
		t.Errorf("two SARIF runs over the same inputs differ:\n%s\n%s", sarifs[0], sarifs[1])
	}
}
