package e2e_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// theirs are the documentation folders of the linter, which the linter's
// own tests check; links into them are not followed here.
var theirs = []string{"docs/idemlint/"}

// mdLink matches the target of a Markdown link: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks checks the documentation as a reader follows it: every
// relative link of README.md and docs/ names a file of the repository
// (and, with #anchor, a heading of that file), every page of docs/ is
// reachable from docs/README.md, and no page cites anything outside the
// repository.
func TestDocsLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"README.md"}
	entries, err := os.ReadDir(filepath.Join(root, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			pages = append(pages, "docs/"+e.Name())
		}
	}
	links := map[string][]string{} // page → pages it links to
	for _, page := range pages {
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		// Spelled in two parts, so that this file does not cite them either.
		for _, forbidden := range []string{"DESIGN" + ".md", "../" + "shared/"} {
			if strings.Contains(text, forbidden) {
				t.Errorf("%s cites %s, which is not part of the repository", page, forbidden)
			}
		}
		for _, m := range mdLink.FindAllStringSubmatch(outsideCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(page), file))
			}
			if slices.ContainsFunc(theirs, func(p string) bool { return strings.HasPrefix(dest, p) }) {
				links[page] = append(links[page], dest)
				continue
			}
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest)))
			if err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			links[page] = append(links[page], dest)
			if anchor == "" || fi.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dest)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(anchors(string(data)), anchor) {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", page, target, dest, anchor)
			}
		}
	}
	reached := map[string]bool{"docs/README.md": true}
	for queue := []string{"docs/README.md"}; len(queue) > 0; queue = queue[1:] {
		for _, dest := range links[queue[0]] {
			if !reached[dest] {
				reached[dest] = true
				queue = append(queue, dest)
			}
		}
	}
	for _, page := range pages {
		if strings.HasPrefix(page, "docs/") && !reached[page] {
			t.Errorf("%s is not reachable from docs/README.md", page)
		}
	}
	for _, p := range theirs {
		if !reached[p+"README.md"] {
			t.Errorf("docs/README.md does not link %sREADME.md", p)
		}
	}
}

// outsideCode returns text with its fenced code blocks blanked out, so that
// code that looks like a link is not taken for one.
func outsideCode(text string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if in {
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// anchors returns the anchors GitHub gives the headings of a Markdown page:
// lower case, spaces as hyphens, everything but letters, digits, _ and -
// dropped, and -1, -2, … for repeats.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for line := range strings.Lines(outsideCode(text)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, a+"-"+strconv.Itoa(n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}
