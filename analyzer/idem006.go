package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

var doc006 = CodeDoc{
	Code:  IDEM006,
	Title: "dedup record and effect in different transactions",
	Text: `The dedup record and the effect are written in different transactions (the
check through db, the effect through tx; both through a pool; a Redis SETNX
then an INCRBY; an apply function that ignores the transaction it is
given; two transactions handed to repositories through the context, as
context.WithValue(ctx, txKey{}, tx)): a crash between them leaves the
record without the effect. A state check's state is such a record: a
handler that skips a row in a state, writes that state, and only then
publishes an event or makes a call (HTTP, gRPC, mail, Redis) loses the
event when it fails or the process stops in between, since the
redelivery finds the state written and skips it.
`,
	Bad: `res, _ := db.ExecContext(ctx, ` + "`" + `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING` + "`" + `, id)
if n, _ := res.RowsAffected(); n == 1 {
	db.ExecContext(ctx, ` + "`" + `UPDATE users SET points = points + $1 WHERE id = $2` + "`" + `, n, user)
}
`,
	Good: `tx, _ := db.BeginTx(ctx, nil)
res, _ := tx.ExecContext(ctx, ` + "`" + `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING` + "`" + `, id)
if n, _ := res.RowsAffected(); n == 1 {
	tx.ExecContext(ctx, ` + "`" + `UPDATE users SET points = points + $1 WHERE id = $2` + "`" + `, n, user)
}
tx.Commit()
`,
}

// checkTx reports a guarded effect whose dedup record is written in another
// transaction (IDEM006): both in SQL (or both in Redis), and not through the
// same transaction value.
func (a *pkgAnalysis) checkTx(s *summary, o *occ, name string) {
	c := o.guardedBy
	if o.kind != c.store || !o.kind.Transactional() || c.kind == ckDone {
		return
	}
	if !o.direct || c.kind == ckFunc {
		a.checkHelperTx(o, c, name)
		return
	}
	if c.state && !a.cfg.strict {
		return // a state check: accepted as check-then-act is
	}
	if c.kind == ckLookup {
		a.checkLookupTx(s, o, c, name)
		return
	}
	if o.recv == nil || c.recv == nil {
		return
	}
	if root := a.txRoot(o.recv); o.kind == knowledge.SQL && sameValue(root, a.txRoot(c.recv)) && !a.pool(root) {
		return
	}
	a.reportTx(o, c, name)
}

// checkLookupTx is checkTx for a lookup (check-then-act): the record is the
// write to the looked-up table that the lookup also guards, not the lookup.
// The record itself is no effect here; an effect is reported when it and the
// record commit separately, with what a crash between them does.
func (a *pkgAnalysis) checkLookupTx(s *summary, o *occ, c *check, name string) {
	if c.table == "" || o.table == c.table || o.recv == nil {
		return
	}
	var rec *occ
	for _, r := range s.occs {
		if r.guardedBy == c && r.direct && r.table == c.table && r.recv != nil {
			rec = r
			break
		}
	}
	if rec == nil {
		return
	}
	if root := a.txRoot(o.recv); sameValue(root, a.txRoot(rec.recv)) && !a.pool(root) {
		return
	}
	what := "a crash between them runs the effect again on redelivery"
	if s.precedes(rec.instr, o.instr) {
		what = "a crash between them loses the effect, and the record says it was done"
	}
	a.report(IDEM006, o.pos, name, rec.pos, "the dedup record", "dedup record %s (looked up by %s) and effect %s in handler %s are in different transactions: %s", rec.desc, c.desc, o.desc, name, what)
}

// checkHelperTx is checkTx when the record or the effect is written inside
// a helper or a repository method (sqlc's q.MarkProcessed and q.AddPoints):
// it compares the transactions the two calls are handed. It reports only
// the clear case: calls on the same repository type, one bound to a
// transaction (q.WithTx(tx), New(tx)) and the other not, or bound to
// another one.
func (a *pkgAnalysis) checkHelperTx(o *occ, c *check, name string) {
	oc, ok := o.instr.(ssa.CallInstruction)
	if !ok || o.kind != knowledge.SQL || c.call == nil {
		return
	}
	// Both written on pools, however deep: two transactions.
	if o.pooled && c.pooled {
		a.reportTx(o, c, name)
		return
	}
	to, tc := a.callTx(oc.Common()), a.callTx(c.call.Common())
	// An effect sent straight to a pool (db.ExecContext) commits alone:
	// wherever the record is written, it is another transaction.
	if ro, _ := splitArgs(oc.Common()); o.direct && ro != nil && a.cat.TypeRole(a.txRoot(ro).Type()) == knowledge.PoolType {
		a.reportTx(o, c, name)
		return
	}
	switch {
	case to == nil && tc == nil:
		return
	case to != nil && tc != nil:
		if sameValue(to, tc) {
			return
		}
	default:
		ro, _ := splitArgs(oc.Common())
		rc, _ := splitArgs(c.call.Common())
		if ro == nil || rc == nil || !types.Identical(ro.Type(), rc.Type()) {
			return
		}
	}
	a.reportTx(o, c, name)
}

// reportTx reports IDEM006 for a record written before its effect commits.
func (a *pkgAnalysis) reportTx(o *occ, c *check, name string) {
	a.report(IDEM006, o.pos, name, c.pos, "the dedup record", "dedup record %s and effect %s in handler %s are in different transactions: a crash between them loses the effect, and the record says it was done", c.desc, o.desc, name)
}

// callTx returns the SQL transaction a call is handed: as its receiver or an
// argument, or through the calls that built its receiver (q.WithTx(tx),
// db.New(tx)); nil when it has none.
func (a *pkgAnalysis) callTx(cc *ssa.CallCommon) ssa.Value {
	recv, args := splitArgs(cc)
	for _, v := range args {
		if v = peel(v); a.cat.TypeRole(v.Type()) == knowledge.TxType {
			return a.txRoot(v)
		}
	}
	for _, v := range args {
		if tx := a.contextTx(v); tx != nil {
			return tx
		}
	}
	for range 8 {
		if recv == nil {
			return nil
		}
		if a.cat.TypeRole(recv.Type()) == knowledge.TxType {
			return a.txRoot(recv)
		}
		call, ok := peel(recv).(*ssa.Call)
		if !ok {
			return nil
		}
		r, args := splitArgs(call.Common())
		for _, v := range args {
			if a.cat.TypeRole(v.Type()) == knowledge.TxType {
				return a.txRoot(v)
			}
		}
		recv = r
	}
	return nil
}

// contextTx returns the SQL transaction a context carries, as a value
// (context.WithValue(ctx, txKey{}, tx), through a few such calls); nil
// when it carries none.
func (a *pkgAnalysis) contextTx(v ssa.Value) ssa.Value {
	for range 4 {
		call, ok := peel(v).(*ssa.Call)
		if !ok {
			return nil
		}
		r, ok := a.find(callee(call.Common()), knowledge.ContextValue)
		if !ok {
			return nil
		}
		_, args := splitArgs(call.Common())
		if x := peel(arg(args, r.arg)); x != nil && a.cat.TypeRole(x.Type()) == knowledge.TxType {
			return a.txRoot(x)
		}
		v = arg(args, r.key)
	}
	return nil
}

// namedPath returns "pkgpath.Name" for a named type or a pointer to one,
// "" for other types.
func namedPath(t types.Type) string {
	n, ok := types.Unalias(derefType(t)).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return knowledge.NormPath(n.Obj().Pkg().Path()) + "." + n.Obj().Name()
}

// checkDoTx reports effects inside a guard Do callback that do not use the
// transaction (or pipeline) the store hands it (IDEM006).
func (a *pkgAnalysis) checkDoTx(cl *ssa.Function, c *check) {
	if len(cl.Params) < 2 {
		return
	}
	tx := cl.Params[1]
	cs := a.summary(cl)
	for _, o := range cs.occs {
		if !o.direct || !o.kind.Transactional() || o.recv == nil {
			continue
		}
		if derivesFrom(o.recv, tx) {
			continue
		}
		a.report(IDEM006, o.pos, "", c.pos, "the dedup record", "effect %s in the apply function of %s does not use its transaction: the dedup record and the effect commit separately", o.desc, c.desc)
	}
}

func derivesFrom(v, from ssa.Value) bool {
	found := false
	walk(v, 6, func(x ssa.Value) bool {
		if x == from {
			found = true
		}
		return !found
	})
	return found
}

// sameValue reports whether x and y are one value: the same SSA value,
// loads of the same field of the same value (two receivers, or
// c.cfg.MaxRetries read once in a loop's test and again in its body),
// equal constants, or len of one value.
func sameValue(x, y ssa.Value) bool {
	x, y = peel(x), peel(y)
	if x == y {
		return true
	}
	switch x := x.(type) {
	case *ssa.UnOp:
		y, ok := y.(*ssa.UnOp)
		if !ok || x.Op != token.MUL || y.Op != token.MUL {
			return false
		}
		fx, ok1 := x.X.(*ssa.FieldAddr)
		fy, ok2 := y.X.(*ssa.FieldAddr)
		if ok1 && ok2 {
			return fx.Field == fy.Field && sameValue(fx.X, fy.X)
		}
		return x.X == y.X
	case *ssa.Field:
		y, ok := y.(*ssa.Field)
		return ok && x.Field == y.Field && sameValue(x.X, y.X)
	case *ssa.FieldAddr:
		y, ok := y.(*ssa.FieldAddr)
		return ok && x.Field == y.Field && sameValue(x.X, y.X)
	case *ssa.Const:
		y, ok := y.(*ssa.Const)
		return ok && x.Value != nil && y.Value != nil && x.Value.Kind() == y.Value.Kind() && constant.Compare(x.Value, token.EQL, y.Value)
	case *ssa.Call:
		xv, xok := lenOf(x)
		yv, yok := lenOf(y)
		return xok && yok && sameValue(xv, yv)
	}
	return false
}

// txRoot returns the transaction or client a statement runs on: it undoes
// embedded-field selections (sqlx.Tx embeds *sql.Tx) and builder chains
// (gorm's tx.Model(…).Where(…) runs on tx).
func (a *pkgAnalysis) txRoot(v ssa.Value) ssa.Value {
	for range 16 {
		v = peel(userRecv(peel(v)))
		call, ok := v.(*ssa.Call)
		if !ok || call.Call.IsInvoke() {
			return v
		}
		fn := callee(call.Common())
		recv, _ := splitArgs(call.Common())
		if fn == nil || recv == nil || !types.Identical(recv.Type(), call.Type()) || a.begins(fn) {
			return v
		}
		v = recv
	}
	return v
}

// begins reports whether fn is its ORM's method that starts a transaction
// (gorm's Begin).
func (a *pkgAnalysis) begins(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	orm := a.cat.ORM(fn.Pkg().Path())
	return orm != nil && orm.Begin != "" && fn.Name() == orm.Begin
}

// pool reports whether statements on v each run in their own transaction: a
// pool or client type, or a gorm DB that is not a transaction (made by
// Begin, or handed to a Transaction callback).
func (a *pkgAnalysis) pool(v ssa.Value) bool {
	switch a.cat.TypeRole(v.Type()) {
	case knowledge.PoolType:
		return true
	case knowledge.ORMDB:
	default:
		return false
	}
	switch x := v.(type) {
	case *ssa.Call:
		fn := callee(x.Common())
		if fn == nil || fn.Pkg() == nil {
			return true
		}
		return !a.begins(fn)
	case *ssa.Parameter:
		return x.Parent().Parent() == nil // a closure's parameter: a Transaction callback
	}
	return true
}
