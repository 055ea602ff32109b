package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Named queries: a program that keeps its statements in .sql files under
// names (goyesql, yesql, dotsql: "-- name: insert-dispatch-tx" before the
// statement) and loads them into a struct whose fields are tagged with the
// name (goyesql's ScanToStruct: InsertDispatchTx string
// `query:"insert-dispatch-tx"`; a prepared *sqlx.Stmt for goyesqlx) runs
// the text the module's files give that name. The files are read with
// the schema, in the whole-program mode only.

// nameTag is the line that names the statement after it.
var nameTag = regexp.MustCompile(`^\s*--\s*name\s*:\s*(\S+)`)

// namedQueries returns the statements of a .sql file by the names its
// "-- name:" lines give them; other comment lines are left out.
func namedQueries(text string) map[string]string {
	out := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name != "" {
			if q := strings.TrimSpace(strings.Join(body, "\n")); q != "" {
				out[name] = q
			}
		}
		body = body[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		if m := nameTag.FindStringSubmatch(line); m != nil {
			flush()
			name = m[1]
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			body = append(body, line)
		}
	}
	flush()
	return out
}

// namedQuery returns the statement a load of a struct field tagged with a
// query's name (query:"insert-dispatch-tx") holds, as a constant: the
// texts the .sql files of the struct's module give that name (one, or
// several joined when files disagree, so that every kind counts). nil
// when v is no such load or the name is not found.
func (a *pkgAnalysis) namedQuery(v ssa.Value) ssa.Value {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL || a.pass != nil {
		return nil
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	st, ok := derefType(fa.X.Type()).Underlying().(*types.Struct)
	if !ok || fa.Field >= st.NumFields() {
		return nil
	}
	name := reflect.StructTag(st.Tag(fa.Field)).Get("query")
	field := st.Field(fa.Field)
	if name == "" || name == "-" || !field.Pos().IsValid() {
		return nil
	}
	file := a.fset.Position(field.Pos()).Filename
	m := a.moduleSQLOf(filepath.Dir(file))
	if m == nil || len(m.named[name]) == 0 {
		return nil
	}
	return ssa.NewConst(constant.MakeString(strings.Join(m.named[name], ";\n")), types.Typ[types.String])
}
