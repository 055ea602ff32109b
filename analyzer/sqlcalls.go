package analyzer

import (
	"go/token"
	"go/types"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// SQL statements: the text a call runs (a constant, a builder's, a
// prepared statement's), what it is (sqlclass), and the values that tell
// a dedup insert's or a lookup's outcome (rows affected, RETURNING, Scan).

// resolveParam classifies the SQL text (or the MongoDB update document) a
// caller passes for a helper's query parameter; false when it is not an
// effect.
func (a *pkgAnalysis) resolveParam(o *occ, v ssa.Value) bool {
	if o.kind == knowledge.Mongo {
		// A MongoDB update document passed down (see mongoUpdate).
		param, effect := mongoUpdate(v)
		o.innerFact.QueryParam = param
		return effect
	}
	texts, param, ok := a.texts(v, 0)
	if !ok {
		if param < 0 && o.innerFact.QueryRead {
			return false // a query of unknown text: taken as a read
		}
		o.param = param
		o.innerFact.QueryParam = param
		return true
	}
	cls := mergeTexts(texts)
	if !cls.Effect() || cls.Insert && a.naturalAt(o.pos, cls.Table, cls.Columns) {
		return false // a read, or a repeat violates the key
	}
	o.desc += " " + snippet(texts[0])
	o.innerFact.QueryParam = -1
	o.insert = cls.Insert
	return true
}

// ruleTexts returns the statement texts call runs under r, a catalogued
// SQL rule: its text argument, a prepared statement's text, or what a
// builder's chain builds; the caller's parameter the text comes from (-1
// when none) and whether the texts are known.
func (a *pkgAnalysis) ruleTexts(call ssa.CallInstruction, r bound) ([]string, int, bool) {
	recv, args := splitArgs(call.Common())
	switch r.Mode {
	case knowledge.SQLStmt:
		return a.texts(a.stmtQuery(recv, 0), 0)
	case knowledge.SQLBuilt:
		if c, ok := call.(*ssa.Call); ok {
			if t, ok := a.builtQuery(c); ok {
				return []string{t}, -1, true
			}
		}
		return nil, -1, false
	}
	return a.texts(arg(args, r.arg), 0)
}

func mergeTexts(texts []string) sqlclass.Class {
	var cls sqlclass.Class
	for i, t := range texts {
		c := sqlclass.Classify(t)
		if i == 0 {
			cls = c
		} else {
			cls = sqlclass.Merge(cls, c)
		}
	}
	return cls
}

// sqlStatement records what a classified SQL statement is: an effect, a
// dedup check (with its rows-affected or RETURNING decision values), or a
// lookup.
func (a *pkgAnalysis) sqlStatement(s *summary, ci ssa.CallInstruction, r bound, recv ssa.Value, cls sqlclass.Class, desc string, keyArgs ssa.Value, call *ssa.Call, query bool, text string) {
	book := a.bookkeeping(cls) // an audit or status-log row: no write
	if cls.Write && cls.Table != "" && !book {
		s.addWrite(cls.Table, cls.Sets...)
	}
	for _, u := range cls.Updates {
		s.addWrite(u.Table, u.Sets...) // a writing CTE's, another statement's
	}
	s.addClears(ci, cls)
	for _, t := range cls.Deletes {
		s.deletes = append(s.deletes, deleteAt{ci, t})
	}
	if cls.Effect() && cls.Insert && (a.cat.PublishTable(cls.Table) || a.claimTables[cls.Table]) {
		// An insert into an outbox or a queue table publishes a message, as
		// a broker's producer does: an effect only with -publish.
		a.addPublish(s, ci, desc, recv)
	} else if cls.Effect() {
		o := a.addEffect(s, ci, desc, knowledge.SQL, recv)
		o.insert = cls.Insert
		o.errVal = a.errOf(call)
		o.table = cls.Table
		o.cols = cls.Columns
		o.sources = cls.Sources
		o.bookkeeping = book // dropped unless a unique test makes it a check
	}
	if cls.Dedup != sqlclass.DedupNone {
		c := &check{call: ci, pos: ci.Pos(), desc: desc, kind: ckSQL, recv: recv, store: knowledge.SQL, key: keyArgs, table: cls.Table, sqlDedup: cls.Dedup}
		c.pooled = recv != nil && a.pool(a.txRoot(recv))
		s.checks = append(s.checks, c)
		a.rowsValues(s, c, call, vInt, implFresh, implDup, cls.Returning)
	}
	if query && cls.Lookup && !cls.Write {
		c := &check{call: ci, pos: ci.Pos(), desc: desc, kind: ckLookup, recv: recv, store: knowledge.SQL, key: keyArgs, table: sqlclass.FromTable(text), filter: sqlclass.FilterColumns(text), constRow: sqlclass.ConstantRow(text)}
		s.checks = append(s.checks, c)
		a.rowsValues(s, c, call, vInt, implDup, implFresh, true)
	}
}

// errOf returns the error value of a call: its error result, or the Error
// field of a gorm result.
func (a *pkgAnalysis) errOf(call *ssa.Call) ssa.Value {
	if call == nil {
		return nil
	}
	if e := errResult(call); e != nil {
		return e
	}
	// A row's statement fails at its Scan (an INSERT … RETURNING run by
	// QueryRow, as sqlc's :one queries are).
	for _, sc := range a.roleCalls(call, knowledge.Scan) {
		if e := errResult(sc); e != nil {
			return e
		}
	}
	if orm := a.ormOf(call); orm != nil && orm.ErrorField != "" {
		if l := fieldLoads(call, orm.ErrorField); len(l) > 0 {
			return l[0]
		}
	}
	return nil
}

// rowsValues registers the decision values of a statement: rows affected
// (sql.Result, pgconn.CommandTag, gorm's RowsAffected), the error of the
// Scan of a RETURNING or SELECT row, and (for lookups) the scanned values.
// pos is what "> 0 rows" implies, zero what "no row" implies.
func (a *pkgAnalysis) rowsValues(s *summary, c *check, call *ssa.Call, _ vkind, pos, zero impl, rows bool) {
	if call == nil {
		return
	}
	set := func(v ssa.Value, d *dval) {
		if v != nil {
			s.values[v] = d
		}
	}
	// database/sql: Result.RowsAffected(); pgx: CommandTag.RowsAffected().
	for _, res := range []ssa.Value{result(call, 0), call} {
		if res == nil {
			continue
		}
		for _, m := range a.roleCalls(res, knowledge.RowsAffected) {
			set(result(m, 0), &dval{chk: c, kind: vInt, t: pos, f: zero})
		}
		if orm := a.ormOf(res); orm != nil && orm.RowsField != "" {
			for _, l := range fieldLoads(res, orm.RowsField) {
				set(l, &dval{chk: c, kind: vInt, t: pos, f: zero})
			}
		}
		if !rows {
			continue
		}
		if c.kind == ckLookup {
			// A row scanned by a helper of the program (scanOrder(row)).
			for _, row := range a.scannedRows(res) {
				if !containsValue(c.bases, row) {
					c.bases = append(c.bases, row)
				}
				s.stateValues(c, row, 0)
			}
		}
		for _, sc := range a.roleCalls(res, knowledge.Scan) {
			set(errResult(sc), &dval{chk: c, kind: vErr, t: pos, s: zero, sentinel: knowledge.NoRows})
			if c.kind == ckLookup {
				a.stateScans(s, c, sc)
			}
			// Scanned values of a lookup: a bool or a count.
			_, sargs := splitArgs(sc.Common())
			for _, sa := range sargs {
				for _, dst := range scanTargets(sa) {
					for _, r := range *dst.Referrers() {
						ld, ok := r.(*ssa.UnOp)
						if !ok || ld.Op != token.MUL || ld.X != dst {
							continue
						}
						switch t := ld.Type().Underlying().(type) {
						case *types.Basic:
							if t.Info()&types.IsBoolean != 0 {
								set(ld, &dval{chk: c, kind: vBool, t: pos, f: zero})
							} else if t.Info()&types.IsInteger != 0 && c.kind == ckLookup {
								set(ld, &dval{chk: c, kind: vInt, t: pos, f: zero, found: c.constRow})
							}
						}
					}
				}
			}
		}
		// A helper the row is handed to that scans it (row.scanInto(r)):
		// its error is the Scan's, the struct it fills the row.
		for _, h := range scanHelpers(res) {
			set(errResult(h.call), &dval{chk: c, kind: vErr, t: pos, s: zero, sentinel: knowledge.NoRows})
			if c.kind == ckLookup && !containsValue(c.bases, h.row) {
				c.bases = append(c.bases, h.row)
				s.stateValues(c, h.row, 0)
			}
		}
	}
}

// scanTargets returns the variables (Allocs) a Scan writes, from its
// variadic argument slice.
func scanTargets(v ssa.Value) []ssa.Value {
	var out []ssa.Value
	vals, _ := variadicValues(v)
	for _, x := range vals {
		if al, ok := x.(*ssa.Alloc); ok {
			out = append(out, al)
		}
	}
	return out
}

// stmtQuery returns the query a prepared statement was prepared with.
func (a *pkgAnalysis) stmtQuery(v ssa.Value, depth int) ssa.Value {
	if depth > 4 || v == nil {
		return nil
	}
	v = peel(v)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	// A statement kept in a struct field, prepared where the struct was
	// built: the query the program prepared into that field.
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL {
		if q := a.namedQuery(ld); q != nil {
			return q // prepared from a named query (goyesqlx)
		}
		if fa, ok := ld.X.(*ssa.FieldAddr); ok {
			if qs := a.stmtFields()[fieldKey(fa)]; len(qs) > 0 {
				return qs[0]
			}
		}
		return nil
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	fn := callee(call.Common())
	if fn == nil {
		return nil
	}
	_, args := splitArgs(call.Common())
	r, ok := a.find(fn, knowledge.Prepare)
	if !ok {
		// A helper of the program that hands a statement back, maybe bound
		// to a transaction (sqlutil.TxStmt(tx, stmt)): its statement.
		if f := call.Call.StaticCallee(); f != nil && f.Blocks != nil && a.local(f.Pkg) {
			if i := stmtParam(f); i >= 0 {
				return a.stmtQuery(arg(call.Call.Args, i), depth+1)
			}
		}
		return nil
	}
	if r.arg < 0 { // Tx.Stmt(stmt)
		return a.stmtQuery(arg(args, 0), depth+1)
	}
	return arg(args, r.arg)
}

// stmtParam returns the index (in the call's arguments) of the only
// parameter of f whose type is f's result type — a statement handed back —
// or -1.
func stmtParam(f *ssa.Function) int {
	res := f.Signature.Results()
	if res.Len() != 1 {
		return -1
	}
	found := -1
	for i, p := range f.Params {
		if types.Identical(p.Type(), res.At(0).Type()) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// stmtFields maps struct fields holding prepared statements to the queries
// the program prepares into them: `s.insertStmt, err = db.Prepare(q)`, and
// statement tables such as `StatementList{{&s.insertStmt, q}, …}` (a
// literal pairing a pointer to a statement field with a query string).
func (a *pkgAnalysis) stmtFields() map[string][]ssa.Value {
	if a.stmts != nil {
		return a.stmts
	}
	a.stmts = map[string][]ssa.Value{}
	type pair struct {
		field *ssa.FieldAddr
		query ssa.Value
		n, q  int
	}
	for _, fn := range a.funcs {
		lits := map[ssa.Value]*pair{} // struct being filled -> its stores
		for st, fa := range fieldStores(fn) {
			val := peel(st.Val)
			if ex, ok := val.(*ssa.Extract); ok {
				val = ex.Tuple
			}
			if c, ok := val.(*ssa.Call); ok {
				if r, ok := a.find(callee(c.Common()), knowledge.Prepare); ok && r.arg >= 0 {
					_, args := splitArgs(c.Common())
					if q := arg(args, r.arg); q != nil {
						k := fieldKey(fa)
						a.stmts[k] = append(a.stmts[k], q)
					}
				}
				continue
			}
			p := lits[fa.X]
			if p == nil {
				p = &pair{}
				lits[fa.X] = p
			}
			if ptr, ok := st.Val.(*ssa.FieldAddr); ok && a.cat.TypeRole(derefType(ptr.Type())) == knowledge.StmtType {
				p.field = ptr
				p.n++
			} else if _, ok := constString(st.Val); ok || isStringGlobal(st.Val) {
				p.query = st.Val
				p.q++
			}
		}
		for _, p := range lits {
			if p.n == 1 && p.q == 1 {
				k := fieldKey(p.field)
				a.stmts[k] = append(a.stmts[k], p.query)
			}
		}
	}
	return a.stmts
}

// isStringGlobal reports whether v is a load of a package-level string.
func isStringGlobal(v ssa.Value) bool {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	_, ok = ld.X.(*ssa.Global)
	b, isBasic := ld.Type().Underlying().(*types.Basic)
	return ok && isBasic && b.Kind() == types.String
}
