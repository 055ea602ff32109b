// Directives: the //idem: comments of a package (//idem:handler,
// //idem:effect, //idem:dedup, //idem:ignore CODE reason).

package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// directives are the //idem: comments of a package.
type directives struct {
	any      bool
	handlers map[token.Pos]bool // func decl or literal positions marked //idem:handler
	funcs    map[*types.Func]string
	ignores  map[string]map[int][]*ignore // file -> line -> ignores
	bad      []badDirective
	lines    map[string]map[int]string // file -> line -> directive kind (handler, effect, dedup) for literals
}

type ignore struct {
	pos    token.Pos
	code   string
	reason string
	used   bool
}

type badDirective struct {
	pos token.Pos
	msg string
}

func scanDirectives(pass *analysis.Pass) *directives {
	d := newDirectives()
	d.scan(pass.Fset, pass.Files, pass.TypesInfo)
	return d
}

func newDirectives() *directives {
	return &directives{handlers: map[token.Pos]bool{}, funcs: map[*types.Func]string{},
		ignores: map[string]map[int][]*ignore{}, lines: map[string]map[int]string{}}
}

// scan adds the directives of files (type-checked into info) to d.
func (d *directives) scan(fset *token.FileSet, files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text, ok := strings.CutPrefix(c.Text, "//idem:")
				if !ok {
					continue
				}
				d.any = true
				pos := fset.Position(c.Pos())
				text, _, _ = strings.Cut(text, " //") // a trailing comment is no reason
				kind, rest, _ := strings.Cut(text, " ")
				switch kind {
				case "ignore":
					fields := strings.Fields(rest)
					if len(fields) == 0 || !Code(fields[0]).known() {
						d.bad = append(d.bad, badDirective{c.Pos(), "//idem:ignore needs a code (IDEM001 … IDEM007) and a reason"})
						continue
					}
					reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), fields[0]))
					ig := &ignore{pos: c.Pos(), code: fields[0], reason: reason}
					if reason == "" {
						d.bad = append(d.bad, badDirective{c.Pos(), "//idem:ignore " + fields[0] + " needs a reason"})
						continue
					}
					if d.ignores[pos.Filename] == nil {
						d.ignores[pos.Filename] = map[int][]*ignore{}
					}
					d.ignores[pos.Filename][pos.Line] = append(d.ignores[pos.Filename][pos.Line], ig)
				case "handler", "effect", "dedup":
					if d.lines[pos.Filename] == nil {
						d.lines[pos.Filename] = map[int]string{}
					}
					d.lines[pos.Filename][pos.Line] = strings.TrimSpace(text)
				default:
					d.bad = append(d.bad, badDirective{c.Pos(), "unknown directive //idem:" + kind})
				}
			}
		}
		// Attach directives to declarations: a FuncDecl's doc, an interface
		// method's doc, or the line above (or of) a function literal.
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if k := docDirective(n.Doc); k != "" {
					if fn, ok := info.Defs[n.Name].(*types.Func); ok {
						d.funcs[fn] = k
						if k == "handler" {
							d.handlers[n.Type.Pos()] = true
						}
					}
				}
			case *ast.InterfaceType:
				for _, m := range n.Methods.List {
					if k := docDirective(m.Doc); k != "" && len(m.Names) > 0 {
						if fn, ok := info.Defs[m.Names[0]].(*types.Func); ok {
							d.funcs[fn] = k
						}
					}
				}
			case *ast.FuncLit:
				p := fset.Position(n.Pos())
				for _, l := range []int{p.Line, p.Line - 1} {
					if k := d.lines[p.Filename][l]; strings.HasPrefix(k, "handler") {
						d.handlers[n.Type.Pos()] = true
					}
				}
			}
			return true
		})
	}
}

// docDirective returns the //idem: directive (handler, effect, dedup …) of a
// doc comment, with its arguments.
func docDirective(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	for _, c := range cg.List {
		if text, ok := strings.CutPrefix(c.Text, "//idem:"); ok {
			k, _, _ := strings.Cut(text, " ")
			if k == "handler" || k == "effect" || k == "dedup" {
				return strings.TrimSpace(text)
			}
		}
	}
	return ""
}
