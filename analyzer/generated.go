package analyzer

import (
	"go/constant"
	"go/types"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/ssa"
)

// Generated queries: an ORM such as ent generates a query builder per
// entity into the user's module (UserQuery, with Where(predicates…) and
// the terminal methods that run it). The generated code reaches the
// database through interceptors and generic helpers, so its reads are
// recognised by their shape (the catalog's GeneratedQueries) rather than
// followed: a terminal method that fetches one row, tells whether one
// exists or counts them is a lookup of the entity's table, and a create
// spec names the table its insert writes.

// generatedLookup records, at a call of a generated query's terminal
// method, the lookup it makes; false when the call is no such method.
//
//   - a row (Only, First): its state may decide; its error tested with
//     IsNotFound says no row exists;
//   - an id (OnlyID): the error alone;
//   - exists (Exist): true when a row exists;
//   - a count (Count): not zero when rows exist.
func (a *pkgAnalysis) generatedLookup(s *summary, ci ssa.CallInstruction, fn *types.Func, recv ssa.Value) bool {
	if fn == nil || recv == nil {
		return false
	}
	g, entity, table := a.generatedQuery(fn)
	if g == nil {
		return false
	}
	kind, ok := g.Lookups[fn.Name()]
	if !ok {
		return false
	}
	call, _ := ci.(*ssa.Call)
	if call == nil {
		return true
	}
	desc := entity + g.Suffix + "." + fn.Name()
	if kind == knowledge.LookupRow {
		a.addStateCheck(s, ci, &stateFact{Result: 0, Table: table, KeyParam: -1}, nil, desc)
		return true
	}
	c := &check{call: ci, pos: ci.Pos(), desc: desc, kind: ckLookup, store: knowledge.SQL, recv: recv, table: table}
	s.checks = append(s.checks, c)
	switch kind {
	case knowledge.LookupID:
		if e := errResult(call); e != nil {
			s.values[e] = &dval{chk: c, kind: vErr, s: implFresh, sentinel: knowledge.NoRows}
		}
	case knowledge.LookupExists:
		if v := result(call, 0); v != nil {
			s.values[v] = &dval{chk: c, kind: vBool, t: implDup, f: implFresh}
		}
	case knowledge.LookupCount:
		if v := result(call, 0); v != nil {
			s.values[v] = &dval{chk: c, kind: vInt, t: implDup, f: implFresh}
		}
	}
	return true
}

// generatedQuery returns, for a method of a generated query builder, its
// shape, the entity it queries and the entity's table; a nil shape when
// fn is no such method.
func (a *pkgAnalysis) generatedQuery(fn *types.Func) (*knowledge.GeneratedQuery, string, string) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, "", ""
	}
	n, ok := types.Unalias(derefType(sig.Recv().Type())).(*types.Named)
	if !ok {
		return nil, "", ""
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return nil, "", ""
	}
	gs := a.cat.GeneratedQueries()
	for i := range gs {
		g := &gs[i]
		if !strings.HasSuffix(n.Obj().Name(), g.Suffix) {
			continue
		}
		for j := 0; j < st.NumFields(); j++ {
			f := st.Field(j)
			if f.Name() != g.Predicates {
				continue
			}
			sl, ok := f.Type().Underlying().(*types.Slice)
			if !ok {
				break
			}
			pred, ok := types.Unalias(sl.Elem()).(*types.Named)
			if !ok || !predicateOf(pred, g.Selector) {
				break
			}
			entity := pred.Obj().Name()
			return g, entity, entityTable(n.Obj().Pkg(), entity, g.TableConst)
		}
	}
	return nil, "", ""
}

// predicateOf reports whether t is a function of one *selector (a
// qualified type name), returning nothing.
func predicateOf(t *types.Named, selector string) bool {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	return knowledge.QualifiedType(derefType(sig.Params().At(0).Type())) == selector
}

// entityTable returns the table constant of the entity's package
// (ent/user.Table), which the generated package imports; "" when it is
// not found (the lookup then matches no insert, and guards nothing).
func entityTable(pkg *types.Package, entity, constName string) string {
	name := strings.ToLower(entity)
	if pkg != nil {
		for _, imp := range pkg.Imports() {
			if imp.Name() != name {
				continue
			}
			if c, ok := imp.Scope().Lookup(constName).(*types.Const); ok && c.Val().Kind() == constant.String {
				return constant.StringVal(c.Val())
			}
		}
	}
	return ""
}

// insertTable returns the table an ORM insert's argument names: a
// generated create spec's (createSpecTable), else its model's
// (modelTable).
func (a *pkgAnalysis) insertTable(v ssa.Value) string {
	if v == nil {
		return ""
	}
	q := knowledge.QualifiedType(derefType(v.Type()))
	for _, g := range a.cat.GeneratedQueries() {
		if g.CreateSpec == q {
			return createSpecTable(v, &g, 0)
		}
	}
	return modelTable(v)
}

// createSpecTable returns the table of a create spec: the constant first
// argument of its constructor, or the table field of a spec literal,
// followed through the generated method that returns it (createSpec);
// "" when unknown.
func createSpecTable(v ssa.Value, g *knowledge.GeneratedQuery, depth int) string {
	if v == nil || depth > 3 {
		return ""
	}
	switch x := peel(v).(type) {
	case *ssa.Call:
		if fn := callee(x.Common()); fn != nil && fn.Name() == g.SpecCtor && len(x.Call.Args) > 0 {
			s, _ := constString(x.Call.Args[0])
			return s
		}
	case *ssa.Alloc:
		// &sqlgraph.CreateSpec{Table: user.Table, …} (ent before v0.12).
		vals, _ := storedField(x, g.SpecTable)
		for _, v := range vals {
			if s, ok := constString(v); ok {
				return s
			}
		}
	case *ssa.Extract:
		call, ok := x.Tuple.(*ssa.Call)
		if !ok || call.Call.StaticCallee() == nil {
			return ""
		}
		for _, b := range call.Call.StaticCallee().Blocks {
			if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && x.Index < len(ret.Results) {
				if t := createSpecTable(returned(ret, x.Index), g, depth+1); t != "" {
					return t
				}
			}
		}
	}
	return ""
}
