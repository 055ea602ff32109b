package analyzer

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/idemlint from the codes' documentation")

// TestCodeDocs keeps each code's documentation whole: a title, a text, a bad
// and a good example; every code is reported by its rule's file; and the
// pages of docs/idemlint are what the documentation generates (go test
// -run TestCodeDocs -update ./analyzer/ rewrites them).
func TestCodeDocs(t *testing.T) {
	seen := map[Code]bool{}
	for _, d := range Docs() {
		if seen[d.Code] {
			t.Errorf("%s documented twice", d.Code)
		}
		seen[d.Code] = true
		if d.Title == "" || d.Text == "" || d.Bad == "" || d.Good == "" {
			t.Errorf("%s: documentation lacks a title, a text or an example", d.Code)
		}
		file := "idem" + strings.TrimPrefix(string(d.Code), "IDEM") + ".go"
		src, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no file %s for its rule and documentation", d.Code, file)
			continue
		}
		if d.Code != IDEM000 && !regexp.MustCompile(`a\.report\(`+string(d.Code)+`,`).Match(src) {
			t.Errorf("%s is never reported in %s", d.Code, file)
		}
	}
	if Analyzer.Doc == "" || strings.Contains(Analyzer.Doc, "# ") {
		t.Errorf("Analyzer.Doc is not the analyzer section: %q", Analyzer.Doc)
	}
	dir := filepath.Join("..", "docs", "idemlint")
	pages := map[string]string{"README.md": docsIndex()}
	for _, d := range Docs() {
		pages[string(d.Code)+".md"] = docPage(d)
	}
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range pages {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, text := range pages {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != text {
			t.Errorf("docs/idemlint/%s is stale or missing: run go test -run TestCodeDocs -update ./analyzer/", name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok {
			t.Errorf("docs/idemlint/%s belongs to no code", e.Name())
		}
	}
}
