package analyzer

import (
	"go/constant"
	"go/types"
	"strings"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// ORM calls: what a gorm or bun create and a gorm update are, from the
// clauses and the chain they were built by.

// gormCreateClass classifies an ORM's create by the clauses on its receiver
// chain: gorm's OnConflict{DoNothing: true} and INSERT IGNORE, bun's
// On("CONFLICT … DO NOTHING") and Ignore() are dedup inserts,
// OnConflict{UpdateAll or DoUpdates} an idempotent upsert. model is the row
// the chain names (bun's Model(&row)), nil when it names none.
func (a *pkgAnalysis) gormCreateClass(recv ssa.Value) (cls sqlclass.Class, model ssa.Value) {
	cls = sqlclass.Class{Known: true, Write: true, Insert: true, Reason: "the insert adds a row on every delivery"}
	dedup := sqlclass.Class{Known: true, Write: true, Idempotent: true, Dedup: sqlclass.DedupInsertNothing}
	a.ormChain(recv, func(fn *types.Func, orm *knowledge.ORM, args []ssa.Value) {
		switch fn.Name() {
		case orm.OnText:
			if t, ok := constString(arg(args, 0)); ok && strings.Contains(strings.Join(strings.Fields(strings.ToUpper(t)), " "), "DO NOTHING") {
				cls = dedup
			}
		case orm.Ignore:
			cls = dedup
		case orm.Model:
			if model == nil {
				model = arg(args, 0)
			}
		}
		if fn.Name() == orm.Clauses {
			for _, x := range args {
				walk(x, 8, func(y ssa.Value) bool {
					n, ok := types.Unalias(derefType(y.Type())).(*types.Named)
					if !ok || n.Obj().Pkg() == nil || knowledge.NormPath(n.Obj().Pkg().Path()) != orm.ClausePkg {
						return true
					}
					switch n.Obj().Name() {
					case orm.Conflict:
						if vals, _ := storedField(y, orm.DoNothing); anyTrue(vals) {
							cls = dedup
							return true
						}
						for _, u := range orm.Upsert {
							if vals, _ := storedField(y, u); len(vals) > 0 && (anyTrue(vals) || !allBool(vals)) {
								cls = sqlclass.Class{Known: true, Write: true, Idempotent: true}
							}
						}
					case orm.Insert:
						if vals, _ := storedField(y, orm.Modifier); len(vals) > 0 {
							if m, _ := constString(vals[0]); strings.Contains(strings.ToUpper(m), "IGNORE") {
								cls = dedup
							}
						}
					}
					return true
				})
			}
		}
	})
	return cls, model
}

// ormChain calls f for each call of an ORM's builder that made recv, from
// the last back: db.Model(&o).Where(…).Clauses(…) as Clauses, Where, Model.
func (a *pkgAnalysis) ormChain(recv ssa.Value, f func(fn *types.Func, orm *knowledge.ORM, args []ssa.Value)) {
	v := recv
	for range 12 {
		call, ok := peel(v).(*ssa.Call)
		if !ok {
			return
		}
		fn := callee(call.Common())
		if fn == nil || fn.Pkg() == nil {
			return
		}
		orm := a.cat.ORM(fn.Pkg().Path())
		if orm == nil {
			return
		}
		r, args := splitArgs(call.Common())
		f(fn, orm, args)
		v = r
	}
}

func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// allBool reports whether every value is a boolean constant.
func allBool(vals []ssa.Value) bool {
	for _, v := range vals {
		if _, ok := constBool(v); !ok {
			return false
		}
	}
	return true
}

func anyTrue(vals []ssa.Value) bool {
	for _, v := range vals {
		if b, ok := constBool(v); ok && b {
			return true
		}
	}
	return false
}

// gormUpdateClass classifies a gorm Update/Updates by rebuilding its SQL:
// the gorm.Expr values it sets and the Where conditions of its receiver
// chain ("UPDATE t SET col = col - ? WHERE status = ?").
func (a *pkgAnalysis) gormUpdateClass(recv ssa.Value, args []ssa.Value, r bound) sqlclass.Class {
	var sets []string
	col := ""
	if r.arg == 1 {
		col, _ = constString(arg(args, 0))
	}
	for _, f := range []ssa.Value{arg(args, r.arg)} {
		walk(f, 10, func(y ssa.Value) bool {
			call, ok := y.(*ssa.Call)
			if !ok {
				return true
			}
			fn := callee(call.Common())
			if fn != nil && fn.Pkg() != nil && a.cat.ORM(fn.Pkg().Path()) != nil && fn.Name() == a.cat.ORM(fn.Pkg().Path()).Expr {
				if e, ok := constString(call.Call.Args[0]); ok {
					c := col
					if c == "" {
						c = sqlclass.FirstIdent(e)
					}
					sets = append(sets, c+" = "+e)
				}
			}
			return true
		})
	}
	var wheres []string
	a.ormChain(recv, func(fn *types.Func, orm *knowledge.ORM, args []ssa.Value) {
		if fn.Name() == orm.Where {
			if w, ok := constString(arg(args, 0)); ok {
				wheres = append(wheres, "("+w+")")
			}
		}
	})
	if col != "" && len(sets) == 0 {
		sets = append(sets, col+" = ?")
	}
	if len(sets) == 0 {
		sets = append(sets, sqlclass.Unknown+" = ?")
	}
	q := "UPDATE t SET " + strings.Join(sets, ", ")
	if len(wheres) > 0 {
		q += " WHERE " + strings.Join(wheres, " AND ")
	}
	return sqlclass.Classify(q)
}

// ormFilter returns the columns an ORM lookup's WHERE holds to a fixed
// state (sqlclass.FilterColumns), rebuilt from the Where calls of its
// chain and the conditions given to the lookup itself, with their constant
// arguments written in: Where("status IN ?", []string{"created",
// "pending"}) is status IN ('created', 'pending').
func (a *pkgAnalysis) ormFilter(recv ssa.Value, conds ssa.Value) []string {
	var wheres []string
	add := func(q ssa.Value, vals []ssa.Value) {
		if w, ok := constString(q); ok {
			wheres = append(wheres, inlineArgs(w, vals))
		}
	}
	if vals, ok := variadicValues(conds); ok && len(vals) > 0 {
		add(vals[0], vals[1:])
	}
	a.ormChain(recv, func(fn *types.Func, orm *knowledge.ORM, args []ssa.Value) {
		if fn.Name() == orm.Where {
			vals, _ := variadicValues(arg(args, 1))
			add(arg(args, 0), vals)
		}
	})
	if len(wheres) == 0 {
		return nil
	}
	return sqlclass.FilterColumns("SELECT * FROM t WHERE " + strings.Join(wheres, " AND "))
}

// inlineArgs writes the constant values of vals into the placeholders (?)
// of an ORM condition, in order; a placeholder whose value is not constant
// stays.
func inlineArgs(q string, vals []ssa.Value) string {
	var b strings.Builder
	i := 0
	for _, r := range q {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		lit := "?"
		if i < len(vals) {
			lit = sqlLiteral(vals[i])
		}
		i++
		b.WriteString(lit)
	}
	return b.String()
}

// sqlLiteral writes a constant as SQL: a string quoted, a number or bool
// as is, a slice of constant strings as a parenthesised list; "?" for
// anything else.
func sqlLiteral(v ssa.Value) string {
	if s, ok := constString(v); ok {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	if c, ok := peel(v).(*ssa.Const); ok && c.Value != nil && (c.Value.Kind() == constant.Int || c.Value.Kind() == constant.Bool) {
		return c.Value.ExactString()
	}
	if ss := constStrings(v); len(ss) > 0 {
		for i, s := range ss {
			ss[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return "(" + strings.Join(ss, ", ") + ")"
	}
	return "?"
}
