package main

import (
	"bytes"
	"encoding/json"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idem/analyzer"
)

// TestSARIFFromFindings converts findings as CheckProgram returns them
// into SARIF, the way the whole-program driver does (findingDiag, then
// printSARIF), and checks each result: rule, level, message, location
// (relative to the root, escaped, code point columns) and related
// locations.
func TestSARIFFromFindings(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	files := map[string]string{
		filepath.Join(root, "a", "a.go"):    "package a\n\nfunc H() { Ack(); Write() }\n",
		filepath.Join(root, "a", "ü b.go"):  "package a\n\nfunc G() { /* ☃ */ Write() }\n",
		filepath.Join(outside, "o", "o.go"): "package o\n\n//idem:ignore\n",
	}
	fset := token.NewFileSet()
	tf := map[string]*token.File{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		check(t, os.MkdirAll(filepath.Dir(name), 0o755))
		check(t, os.WriteFile(name, []byte(files[name]), 0o644))
		f := fset.AddFile(name, -1, len(files[name]))
		f.SetLinesForContent([]byte(files[name]))
		tf[name] = f
	}
	// pos is the position of the first occurrence of what in file.
	pos := func(file, what string) token.Pos {
		i := strings.Index(files[file], what)
		if i < 0 {
			t.Fatalf("%q not in %s", what, file)
		}
		return tf[file].Pos(i)
	}
	a, u, o := filepath.Join(root, "a", "a.go"), filepath.Join(root, "a", "ü b.go"), filepath.Join(outside, "o", "o.go")
	finding := func(code analyzer.Code, p, end token.Pos, msg string, related ...analysis.RelatedInformation) analyzer.Finding {
		return analyzer.Finding{Code: code, Handler: "a.H", Diagnostic: analysis.Diagnostic{
			Pos: p, End: end, Category: string(code), Message: msg + " (" + string(code) + ")", URL: code.URL(), Related: related}}
	}
	for _, tc := range []struct {
		name     string
		finding  analyzer.Finding
		level    string
		message  string
		location string   // uriBaseId|uri:line:col[-line:col]
		related  []string // message@location
	}{
		{
			name:     "an effect",
			finding:  finding(analyzer.IDEM001, pos(a, "Write"), token.NoPos, "effect Write in handler a.H is not guarded by a dedup check"),
			level:    "error",
			message:  "effect Write in handler a.H is not guarded by a dedup check",
			location: "%SRCROOT%|a/a.go:3:19",
		},
		{
			name: "an ack before the effect, the effect related",
			finding: finding(analyzer.IDEM002, pos(a, "Ack"), pos(a, "();"), "a.H acks before the effect",
				analysis.RelatedInformation{Pos: pos(a, "Write"), End: pos(a, "() }"), Message: "the effect"}),
			level:    "error",
			message:  "a.H acks before the effect",
			location: "%SRCROOT%|a/a.go:3:12-3:15",
			related:  []string{"the effect@%SRCROOT%|a/a.go:3:19-3:24"},
		},
		{
			name:     "a column after non-ASCII text, a name to escape",
			finding:  finding(analyzer.IDEM001, pos(u, "Write"), token.NoPos, "effect Write in handler a.G is not guarded by a dedup check"),
			level:    "error",
			message:  "effect Write in handler a.G is not guarded by a dedup check",
			location: "%SRCROOT%|a/%C3%BC%20b.go:3:20",
		},
		{
			name:     "a malformed directive outside the root",
			finding:  finding(analyzer.IDEM000, pos(o, "//idem"), token.NoPos, "//idem:ignore needs a code and a reason"),
			level:    "warning",
			message:  "//idem:ignore needs a code and a reason",
			location: "|file://" + filepath.ToSlash(o) + ":3:1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := findingDiag(fset, tc.finding, "example.com/m/a")
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			check(t, (&results{diags: []*diagnostic{d}}).printSARIF(&buf, cwd, root))
			var log sarifLog
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatalf("%v\n%s", err, buf.Bytes())
			}
			run := log.Runs[0]
			if len(run.Results) != 1 {
				t.Fatalf("%d results, want 1\n%s", len(run.Results), buf.Bytes())
			}
			r := run.Results[0]
			rule := run.Tool.Driver.Rules[r.RuleIndex]
			if r.RuleID != string(tc.finding.Code) || rule.ID != r.RuleID || r.Level != tc.level || rule.DefaultConfiguration.Level != tc.level {
				t.Errorf("rule %s (index %d: %s), level %s; want %s, level %s", r.RuleID, r.RuleIndex, rule.ID, r.Level, tc.finding.Code, tc.level)
			}
			if r.Message.Text != tc.message {
				t.Errorf("message %q, want %q", r.Message.Text, tc.message)
			}
			if len(r.Locations) != 1 || where(r.Locations[0]) != tc.location {
				t.Errorf("locations %+v, want %s", r.Locations, tc.location)
			}
			var related []string
			for i, l := range r.RelatedLocations {
				if l.ID == nil || *l.ID != i+1 || l.Message == nil {
					t.Errorf("related location %d: %+v", i, l)
					continue
				}
				related = append(related, l.Message.Text+"@"+where(l))
			}
			if !slices.Equal(related, tc.related) {
				t.Errorf("related %q, want %q", related, tc.related)
			}
			if got := run.OriginalURIBaseIDs[srcRoot].URI; got != "file://"+filepath.ToSlash(root)+"/" {
				t.Errorf("%s is %q, want the root %s", srcRoot, got, root)
			}
			if len(run.Invocations) != 1 || !run.Invocations[0].ExecutionSuccessful {
				t.Errorf("invocations %+v, want one, successful", run.Invocations)
			}
		})
	}
}

// where prints a location as uriBaseId|uri:line:col, and -line:col for
// its end.
func where(l sarifLocation) string {
	p := l.PhysicalLocation
	s := p.ArtifactLocation.URIBaseID + "|" + p.ArtifactLocation.URI
	if r := p.Region; r != nil {
		s += ":" + itoa(r.StartLine) + ":" + itoa(r.StartColumn)
		if r.EndLine > 0 {
			s += "-" + itoa(r.EndLine) + ":" + itoa(r.EndColumn)
		}
	}
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestSARIFInvocation checks that warnings and analysis errors become the
// invocation's notifications, and a failed run an unsuccessful one.
func TestSARIFInvocation(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  results
		ok   bool
		want []string // level: message
	}{
		{"clean", results{}, true, nil},
		{"a package skipped", results{stderr: []string{"idemlint: warning: example.com/x not analysed: no Go files"}}, true,
			[]string{"warning: idemlint: warning: example.com/x not analysed: no Go files"}},
		{"a package failed", results{stderr: []string{"a/a.go:1:1: expected 'package'"}, failed: true}, false,
			[]string{"error: a/a.go:1:1: expected 'package'"}},
		{"an analysis error", results{errors: []*unitError{{id: "example.com/m/a", analyzer: "idemlint", Err: "-codes: unknown code"}}}, false,
			[]string{"error: example.com/m/a: -codes: unknown code"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sarifWriter{dir: cwd, root: cwd, lines: map[string][]string{}}
			log := s.log(&tc.res)
			inv := log.Runs[0].Invocations[0]
			var got []string
			for _, n := range inv.Notifications {
				got = append(got, n.Level+": "+n.Message.Text)
			}
			if inv.ExecutionSuccessful != tc.ok || !slices.Equal(got, tc.want) {
				t.Errorf("successful %v, notifications %q; want %v, %q", inv.ExecutionSuccessful, got, tc.ok, tc.want)
			}
		})
	}
}

// TestSARIFRules checks the rules against the analyzer's documentation:
// one per code, in order, each with its title, text, page and level.
func TestSARIFRules(t *testing.T) {
	docs := analyzer.Docs()
	rules := sarifRules()
	if len(rules) != len(docs) {
		t.Fatalf("%d rules for %d codes", len(rules), len(docs))
	}
	names := map[string]bool{}
	for i, d := range docs {
		r := rules[i]
		if r.ID != string(d.Code) || r.ShortDescription.Text != d.Title || r.HelpURI != d.Code.URL() ||
			!strings.HasPrefix(r.FullDescription.Text, strings.Fields(d.Text)[0]) || strings.Contains(r.FullDescription.Text, "\n") ||
			!strings.Contains(r.Help.Markdown, d.Bad) || !strings.Contains(r.Help.Markdown, d.Good) {
			t.Errorf("rule %d: %+v, for %+v", i, r, d)
		}
		if r.Name == "" || names[r.Name] {
			t.Errorf("rule %s: name %q empty or not unique", r.ID, r.Name)
		}
		names[r.Name] = true
		if want := map[bool]string{true: "warning", false: "error"}[d.Code == analyzer.IDEM000]; r.DefaultConfiguration.Level != want {
			t.Errorf("rule %s: level %s, want %s", r.ID, r.DefaultConfiguration.Level, want)
		}
	}
	for _, tc := range []struct{ title, want string }{
		{"ack on a failure path", "AckOnAFailurePath"},
		{"check-then-act dedup (-strict)", "CheckThenActDedup"},
		{"malformed //idem: directive", "MalformedIdemDirective"},
	} {
		if got := ruleName(tc.title); got != tc.want {
			t.Errorf("ruleName(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFormatFlag checks how -format and -json are read, and which
// combinations checkFormat refuses (exit 2).
func TestFormatFlag(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		env    string // IDEMLINT_DRIVER
		format string
		json   bool
		bad    bool
	}{
		{args: []string{"./..."}, format: "text"},
		{args: []string{"-json", "./..."}, format: "json", json: true},
		{args: []string{"-format", "json", "./..."}, format: "json", json: true},
		{args: []string{"-format=sarif", "./..."}, format: "sarif"},
		{args: []string{"-format", "sarif", "-modular", "./..."}, format: "sarif"},
		{args: []string{"-format", "text", "-json", "./..."}, format: "text", json: true, bad: true},
		{args: []string{"-format", "yaml", "./..."}, format: "yaml", bad: true},
		{args: []string{"-format", "sarif", "-diff", "./..."}, format: "sarif", bad: true},
		{args: []string{"-format", "sarif", "./..."}, env: "packages", format: "sarif", bad: true},
		{args: []string{"-format", "sarif", "x.go"}, format: "sarif", bad: true},
		// The old driver prints its usage, or its flag error.
		{args: []string{"-format", "sarif"}, format: "sarif"},
		{args: []string{"-format", "sarif", "-nosuchflag", "./..."}, format: "sarif"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv("IDEMLINT_DRIVER", tc.env)
			s := parseStandalone(tc.args)
			code, bad := checkFormat(s)
			if s.format != tc.format || s.json != tc.json || bad != tc.bad || (bad && code != 2) {
				t.Errorf("format %q, json %v, refused %v (exit %d); want %q, %v, %v", s.format, s.json, bad, code, tc.format, tc.json, tc.bad)
			}
		})
	}
}
