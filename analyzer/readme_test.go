package analyzer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// TestReadmeExamples keeps the README's idemlint section honest: every code
// the analyzer can emit has an entry (a <details> block whose summary is the
// code and its title from the codes' documentation) with a complete Go example and
// the findings idemlint prints for it. Each example is compiled against the
// client stubs of testdata/src and analysed with the flags of its
// "$ idemlint …" line; the findings must be exactly the ones the README
// shows, file:line:col included.
func TestReadmeExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sec := readmeSection(t, string(b), "## idemlint")

	type entry struct {
		title, src, cmd string
		want            []string
	}
	entries := map[string]entry{}
	details := regexp.MustCompile(`(?s)<details>\s*<summary>(.*?)</summary>(.*?)</details>`)
	goBlock := regexp.MustCompile("(?s)```go\n(.*?)```")
	textBlock := regexp.MustCompile("(?s)```text\n(.*?)```")
	codeRe := regexp.MustCompile(`IDEM\d{3}`)
	for _, m := range details.FindAllStringSubmatch(sec, -1) {
		summary := strings.TrimSpace(stripTags(m[1]))
		code := codeRe.FindString(summary)
		if code == "" || !strings.HasPrefix(summary, code) {
			continue
		}
		if _, dup := entries[code]; dup {
			t.Errorf("README: %s has two entries", code)
		}
		e := entry{title: strings.TrimSpace(strings.TrimPrefix(summary, code))}
		if g := goBlock.FindAllStringSubmatch(m[2], -1); len(g) != 1 {
			t.Errorf("README: %s has %d Go blocks, want 1", code, len(g))
		} else {
			e.src = g[0][1]
		}
		if o := textBlock.FindAllStringSubmatch(m[2], -1); len(o) != 1 {
			t.Errorf("README: %s has %d text blocks (the output), want 1", code, len(o))
		} else {
			lines := strings.Split(strings.TrimSpace(o[0][1]), "\n")
			e.cmd = lines[0]
			e.want = lines[1:]
		}
		entries[code] = e
	}

	for _, c := range Docs() {
		e, ok := entries[string(c.Code)]
		if !ok {
			t.Errorf("README: %s (%s) has no <details> entry with an example", c.Code, c.Title)
			continue
		}
		delete(entries, string(c.Code))
		if strings.TrimLeft(e.title, " —-·:") != c.Title {
			t.Errorf("README: %s is titled %q, the analyzer's title is %q", c.Code, e.title, c.Title)
		}
		if e.src == "" || e.cmd == "" {
			continue
		}
		t.Run(string(c.Code), func(t *testing.T) {
			got := runReadmeExample(t, strings.ToLower(string(c.Code)), e.src, e.cmd)
			if !slices.Contains(findingCodes(got), string(c.Code)) {
				t.Errorf("the example does not produce %s; it produces:\n%s", string(c.Code), strings.Join(got, "\n"))
			}
			for _, w := range e.want {
				if !strings.HasSuffix(w, ")") || codeRe.FindString(w[strings.LastIndex(w, "("):]) == "" {
					t.Errorf("README finding does not end with its code in parentheses: %s", w)
				}
			}
			if !slices.Equal(got, e.want) {
				t.Errorf("README shows:\n%s\nidemlint prints:\n%s", strings.Join(e.want, "\n"), strings.Join(got, "\n"))
			}
		})
	}
	for code := range entries {
		t.Errorf("README documents %s, which the analyzer does not emit", code)
	}
}

// readmeSection returns the text from the heading to the next heading of the
// same level.
func readmeSection(t *testing.T, doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no %q section", heading)
	}
	rest := doc[i+1+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func stripTags(s string) string {
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, "")
}

func findingCodes(lines []string) []string {
	var out []string
	for _, l := range lines {
		if i := strings.LastIndex(l, "("); i >= 0 {
			out = append(out, strings.TrimSuffix(l[i+1:], ")"))
		}
	}
	return out
}

// recorder collects analysistest's complaints; the example carries no
// "want" comments, so the unexpected diagnostics and facts are expected.
type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// runReadmeExample analyses src as consumer.go of package readme/<name> in a
// GOPATH made of the test stubs, with the flags of cmd ("$ idemlint [flags]
// ./..."), and returns its findings as idemlint prints them.
func runReadmeExample(t *testing.T, name, src, cmd string) []string {
	args := strings.Fields(cmd)
	if len(args) < 3 || args[0] != "$" || args[1] != "idemlint" || args[len(args)-1] != "./..." {
		t.Fatalf("README: the output does not begin with \"$ idemlint [flags] ./...\": %q", cmd)
	}
	for _, f := range args[2 : len(args)-1] {
		k, v, ok := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !ok {
			v = "true"
		}
		fl := Analyzer.Flags.Lookup(k)
		if fl == nil {
			t.Fatalf("README: unknown flag %s", f)
		}
		if err := fl.Value.Set(v); err != nil {
			t.Fatal(err)
		}
		defer fl.Value.Set(fl.DefValue)
	}

	gopath := t.TempDir()
	stubs, err := filepath.Abs(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(stubs)
	if err != nil {
		t.Fatal(err)
	}
	srcDir := filepath.Join(gopath, "src")
	pkgDir := filepath.Join(srcDir, "readme", name)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != "readme" {
			if err := os.Symlink(filepath.Join(stubs, e.Name()), filepath.Join(srcDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "consumer.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	results := analysistest.Run(rec, gopath, Analyzer, "readme/"+name)
	for _, m := range rec.msgs {
		if !strings.Contains(m, "unexpected diagnostic") && !strings.Contains(m, "unexpected fact") {
			t.Errorf("analysistest: %s", m)
		}
	}
	var got []string
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("analysis failed: %v", r.Err)
		}
		if r.Pass.Pkg.Path() != "readme/"+name {
			continue
		}
		for _, d := range r.Diagnostics {
			p := r.Pass.Fset.Position(d.Pos)
			got = append(got, fmt.Sprintf("%s:%d:%d: %s", filepath.Base(p.Filename), p.Line, p.Column, d.Message))
		}
	}
	if len(results) == 0 {
		t.Fatalf("the example was not analysed")
	}
	slices.SortFunc(got, func(a, b string) int { return cmpPos(a, b) })
	return got
}

// cmpPos orders findings by line and column.
func cmpPos(a, b string) int {
	var la, ca, lb, cb int
	fmt.Sscanf(a[strings.Index(a, ":")+1:], "%d:%d", &la, &ca)
	fmt.Sscanf(b[strings.Index(b, ":")+1:], "%d:%d", &lb, &cb)
	if la != lb {
		return la - lb
	}
	if ca != cb {
		return ca - cb
	}
	return strings.Compare(a, b)
}
