package analyzer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// clientPath matches an import path with a domain (github.com/…, gorm.io/…).
	clientPath = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+/`)
	// ownPath matches the paths the engine may name: its own and x/tools.
	ownPath = regexp.MustCompile(`^(golang\.org/x/|github\.com/idemkit/idem/)`)
)

// TestEngineNamesNoClient checks that what idemlint knows of client
// libraries stays in package knowledge: no file of the engine imports a
// client or spells a client's import path in a string.
func TestEngineNamesNoClient(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if clientPath.MatchString(s) && !ownPath.MatchString(s) {
				t.Errorf("%s: the engine names the client %q; it belongs in package knowledge", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}
