package analyzer

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"
)

// TestDocCodes keeps the package documentation in sync with the codes the
// analyzer can emit: every code has a section with a bad and a good example,
// every section is a code, and every code appears in the analyzer's source.
func TestDocCodes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", doc, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Doc.Text()
	sections := map[string]string{}
	var order []string
	heading := regexp.MustCompile(`(?m)^# (IDEM\d{3})$`)
	idx := heading.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		code := text[m[2]:m[3]]
		sections[code] = text[m[1]:end]
		order = append(order, code)
	}
	known := map[string]bool{}
	for _, c := range codes {
		known[c.code] = true
		sec, ok := sections[c.code]
		if !ok {
			t.Errorf("%s (%s) has no section in doc.go", c.code, c.title)
			continue
		}
		if !strings.Contains(sec, "Bad:") || !strings.Contains(sec, "Good:") {
			t.Errorf("section %s lacks a bad or a good example", c.code)
		}
	}
	for _, code := range order {
		if !known[code] {
			t.Errorf("doc.go documents %s, which the analyzer does not emit", code)
		}
	}
	// Every code is reported somewhere in the source.
	src := ""
	for _, name := range []string{"report.go", "analyzer.go"} {
		b, err := readFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src += b
	}
	for _, c := range codes {
		if !strings.Contains(src, `"`+c.code+`"`) {
			t.Errorf("%s is never reported", c.code)
		}
	}
	if Analyzer.Doc == "" || strings.Contains(Analyzer.Doc, "# ") {
		t.Errorf("Analyzer.Doc is not the analyzer section: %q", Analyzer.Doc)
	}
}
