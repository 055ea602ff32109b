package analyzer

import (
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// builtQuery returns, for a call of a SQL builder's rendering method (the
// catalog's QueryBuilders: huandu/go-sqlbuilder's Build, squirrel's ToSql,
// PostgREST's Execute, which also runs it), a statement standing for what
// it renders: its kind, the table its verb method (or its From) was given
// ("_builder_" when not seen), the options and suffix the chain gave as
// constants (IGNORE, ON CONFLICT … DO NOTHING, RETURNING id), whether a
// verb made it an upsert, and, for an update, whether an accumulating
// method was called on the builder. A builder with no statement of its own
// (PostgREST's) whose chain shows no verb renders nothing known.
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
	accumulates, upsert := false, false
	var suffix, options []string
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
		if t, ok := constString(arg(args, 0)); ok && slices.Contains(qb.Suffix, f.Name()) {
			suffix = append([]string{t}, suffix...) // the chain is walked from its end
		}
		if slices.Contains(qb.Options, f.Name()) {
			for _, x := range args {
				vals, ok := variadicValues(x)
				if !ok {
					vals = []ssa.Value{x}
				}
				for _, v := range vals {
					if t, ok := constString(v); ok {
						options = append(options, t)
					}
				}
			}
		}
		if start, ok := qb.Verbs[f.Name()]; ok {
			stmt = start
			if t, ok := constString(arg(args, 0)); ok && t != "" && len(qb.From) == 0 {
				table = t
			}
			if i, ok := qb.Upserts[f.Name()]; ok {
				upsert = i < 0
				if b, known := constBool(arg(args, i)); i >= 0 && known {
					upsert = b
				}
			}
		}
		if t, ok := constString(arg(args, 0)); ok && t != "" && slices.Contains(qb.From, f.Name()) {
			table = t
		}
		if rv == nil || a.cat.QueryBuilder(rv.Type()) != qb {
			break
		}
		v = peel(rv)
	}
	if len(options) > 0 {
		// INSERT IGNORE INTO: the options follow the verb.
		verb, rest, _ := strings.Cut(stmt, " ")
		stmt = strings.Join(append(append([]string{verb}, options...), rest), " ")
	}
	end := ""
	if len(suffix) > 0 {
		end = " " + strings.Join(suffix, " ")
	}
	switch {
	case stmt == "":
		return "", false
	case stmt == "INSERT INTO" && upsert:
		return "INSERT INTO " + table + " (_builder_) VALUES ($1) ON CONFLICT (_builder_) DO UPDATE SET _builder_ = EXCLUDED._builder_" + end, true
	case stmt == "UPDATE" && accumulates:
		return "UPDATE " + table + " SET _builder_ = _builder_ + 1" + end, true
	case stmt == "UPDATE":
		return "UPDATE " + table + " SET _builder_ = $1" + end, true
	case stmt == "DELETE FROM":
		return "DELETE FROM " + table + " WHERE _builder_ = $1" + end, true
	case stmt == "SELECT * FROM":
		return "SELECT * FROM " + table + end, true
	}
	return stmt + " " + table + " (_builder_) VALUES ($1)" + end, true
}
