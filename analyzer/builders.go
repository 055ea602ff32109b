package analyzer

import (
	"slices"

	"golang.org/x/tools/go/ssa"
)

// builtQuery returns, for a call of a SQL builder's rendering method (the
// catalog's QueryBuilders: huandu/go-sqlbuilder's Build), a statement standing for what it renders: its kind, the table
// its verb method was given ("_builder_" when not seen), and, for an
// update, whether an accumulating method was called on the builder.
func (a *pkgAnalysis) builtQuery(call *ssa.Call) (string, bool) {
	fn := callee(call.Common())
	recv, _ := splitArgs(call.Common())
	if fn == nil || recv == nil {
		return "", false
	}
	qb := a.cat.QueryBuilder(recv.Type())
	if qb == nil || !slices.Contains(qb.Build, fn.Name()) {
		return "", false
	}
	stmt, table := qb.Stmt, "_builder_"
	accumulates := false
	// The builder's chain (b := New().Update("t"); b.Set(…); b.Build()):
	// the calls that made it and the calls made on it.
	seen := map[ssa.Value]bool{}
	for v := peel(recv); v != nil && !seen[v]; {
		seen[v] = true
		for _, r := range *v.Referrers() {
			c, ok := r.(*ssa.Call)
			if !ok {
				continue
			}
			if f := callee(c.Common()); f != nil && slices.Contains(qb.Accumulate, f.Name()) {
				if rv, _ := splitArgs(c.Common()); rv != nil && peel(rv) == v {
					accumulates = true
				}
			}
		}
		c, ok := v.(*ssa.Call)
		if !ok {
			break
		}
		f := callee(c.Common())
		if f == nil {
			break
		}
		rv, args := splitArgs(c.Common())
		if start, ok := qb.Verbs[f.Name()]; ok {
			stmt = start
			if t, ok := constString(arg(args, 0)); ok && t != "" {
				table = t
			}
		}
		if rv == nil || a.cat.QueryBuilder(rv.Type()) != qb {
			break
		}
		v = peel(rv)
	}
	switch {
	case stmt == "UPDATE" && accumulates:
		return "UPDATE " + table + " SET _builder_ = _builder_ + 1", true
	case stmt == "UPDATE":
		return "UPDATE " + table + " SET _builder_ = $1", true
	case stmt == "DELETE FROM":
		return "DELETE FROM " + table + " WHERE _builder_ = $1", true
	case stmt == "SELECT * FROM":
		return "SELECT * FROM " + table, true
	}
	return stmt + " " + table + " (_builder_) VALUES ($1)", true
}
