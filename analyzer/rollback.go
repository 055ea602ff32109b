package analyzer

import (
	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/ssa"
)

// A dedup insert made last in a transaction guards what the transaction
// did before it: gorm's Transaction rolls its callback's writes back when
// the callback returns an error, so
//
//	db.Transaction(func(tx *gorm.DB) error {
//		tx.Model(&Credit{}).Where("uid = ?", uid).Updates(…) // undone on a duplicate
//		if err := tx.Create(&CreditLog{Key: key}).Error; err != nil {
//			if isUniqueViolation(err) {
//				return ErrDuplicated
//			}
//			return err
//		}
//		return nil
//	})
//
// runs the balance change once per key, as if the log row were claimed
// first.

// The same holds in a transaction the function begins itself
// (database/sql's BeginTx, pgx's Begin): a duplicate side that never
// commits it leaves every write on it rolled back, whether it returns an
// error or nil:
//
//	tx, _ := db.BeginTx(ctx, nil)
//	defer tx.Rollback()
//	tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user)
//	if _, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, id); err != nil {
//		if isUniqueViolation(err) {
//			return nil // not committed: the points are rolled back
//		}
//		return err
//	}
//	return tx.Commit()

// rollbackGuards marks as guarded the effects on a transaction that every
// path takes to a unique-tested insert on that transaction (or to a
// failure, which rolls back too), when that insert's duplicate side always
// rolls the transaction back: in a transaction callback (the catalog's
// ORM.Transaction), it fails the callback; in a transaction the function
// began, it never reaches the transaction's commit.
func (a *pkgAnalysis) rollbackGuards(s *summary) {
	callback := a.txParam(s.fn)
	for _, c := range s.checks {
		if c.kind != ckUnique || !c.valid() || c.recv == nil {
			continue
		}
		tx := a.txRoot(c.recv)
		switch {
		case callback != nil && tx == callback:
			if !s.dupFails(c) {
				continue
			}
		case a.begunIn(s.fn, tx):
			if !a.dupUncommitted(s, c, tx) {
				continue
			}
		default:
			continue
		}
		for _, o := range s.occs {
			if o.guardedBy == nil && o.recv != nil && a.txRoot(o.recv) == tx && s.failsOrReaches(o.instr, c.call) {
				o.guardedBy = c
			}
		}
	}
}

// A job completed in the transaction that holds its writes (River's
// JobCompleteTx) is acked by that transaction's commit: a crash before it
// rolls back the writes and the completion together, and a retry after it
// finds the job done, so
//
//	tx, _ := pool.Begin(ctx)
//	defer tx.Rollback(ctx)
//	q.WithTx(tx).AddPoints(ctx, user, n)      // commits with the completion
//	river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
//	return tx.Commit(ctx)
//
// runs the points once per job, as if a dedup record were written with
// them.

// completionGuards marks as guarded the effects on a transaction fn began
// (or was handed by an ORM's transaction callback) that no path takes to a
// commit of that transaction without completing the job on it first.
func (a *pkgAnalysis) completionGuards(s *summary) {
	callback := a.txParam(s.fn)
	for ci := range callsIn(s.fn) {
		f := callee(ci.Common())
		r := a.cat.Find(f, knowledge.CompleteTx)
		if r == nil {
			continue
		}
		_, args := splitArgs(ci.Common())
		i := r.ArgIndex(f)
		if i < 0 || i >= len(args) {
			continue
		}
		tx := a.txRoot(args[i])
		if !a.begunIn(s.fn, tx) && (callback == nil || tx != callback) {
			continue
		}
		done := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckDone, store: knowledge.SQL, recv: tx, decided: true}
		for _, o := range s.occs {
			if o.guardedBy != nil || o.kind != knowledge.SQL || !runsBefore(ci, o.instr) && a.commitsWithout(s, o.instr, ci, tx) {
				continue
			}
			if oc, ok := o.instr.(ssa.CallInstruction); ok && sameValue(a.callTx(oc.Common()), tx) {
				o.guardedBy = done
			}
		}
	}
}

// commitsWithout reports whether a path from instr reaches a commit of tx
// that does not pass done first.
func (a *pkgAnalysis) commitsWithout(s *summary, instr, done ssa.Instruction, tx ssa.Value) bool {
	return s.forwardUntil(instr, nil, func(in ssa.Instruction) int {
		if in == done {
			return 1
		}
		ci, ok := in.(ssa.CallInstruction)
		if !ok || !a.cat.Has(callee(ci.Common()), knowledge.Commit) {
			return 0
		}
		if recv, _ := splitArgs(ci.Common()); recv == nil || sameValue(a.txRoot(recv), tx) {
			return 2
		}
		return 0
	})
}

// runsBefore reports whether x runs before y on every path to y: x's block
// dominates y's, and in one block x comes first.
func runsBefore(x, y ssa.Instruction) bool {
	if x.Block() == y.Block() {
		return index(x.Block(), x) < index(y.Block(), y)
	}
	return x.Block().Dominates(y.Block())
}

// begunIn reports whether tx is an SQL transaction fn begins: a result of a
// call made in fn, of a transaction type of the catalog.
func (a *pkgAnalysis) begunIn(fn *ssa.Function, tx ssa.Value) bool {
	v := tx
	if x, ok := v.(*ssa.Extract); ok {
		v = x.Tuple
	}
	call, ok := v.(*ssa.Call)
	return ok && call.Parent() == fn && a.cat.TypeRole(tx.Type()) == knowledge.TxType
}

// dupUncommitted reports whether no duplicate side of c reaches a commit of
// tx.
func (a *pkgAnalysis) dupUncommitted(s *summary, c *check, tx ssa.Value) bool {
	if len(c.decisions) == 0 {
		return false
	}
	for _, d := range c.decisions {
		if d.other == nil {
			return false
		}
		for b := range s.reachable(d.other, nil) {
			for _, instr := range b.Instrs {
				ci, ok := instr.(ssa.CallInstruction)
				if !ok || !a.cat.Has(callee(ci.Common()), knowledge.Commit) {
					continue
				}
				if recv, _ := splitArgs(ci.Common()); recv == nil || a.txRoot(recv) == tx {
					return false
				}
			}
		}
	}
	return true
}

// txParam returns the transaction parameter of fn when fn is a closure
// handed to an ORM's transaction method (the catalog's ORM.Transaction).
func (a *pkgAnalysis) txParam(fn *ssa.Function) ssa.Value {
	if fn.Parent() == nil || len(fn.Params) == 0 {
		return nil
	}
	for ci := range callsIn(fn.Parent()) {
		f := callee(ci.Common())
		if f == nil || f.Pkg() == nil {
			continue
		}
		orm := a.cat.ORM(f.Pkg().Path())
		if orm == nil || orm.Transaction == "" || f.Name() != orm.Transaction {
			continue
		}
		for _, x := range ci.Common().Args {
			if funcValue(x) == fn {
				return fn.Params[0]
			}
		}
	}
	return nil
}

// dupFails reports whether every decision of c sends the duplicate side
// only to returns of a non-nil error.
func (s *summary) dupFails(c *check) bool {
	if len(c.decisions) == 0 {
		return false
	}
	for _, d := range c.decisions {
		if d.other == nil || !failsOnly(d.other) {
			return false
		}
	}
	return true
}

// failsOrReaches reports whether every path from instr to a return of its
// function reaches the call at (later in instr's block, or in a block on
// the way) or returns a non-nil error.
func (s *summary) failsOrReaches(instr ssa.Instruction, at ssa.Instruction) bool {
	b := instr.Block()
	if b == at.Block() {
		return index(b, instr) < index(b, at) // else at runs first: a loop
	}
	return failsOrReachesFrom(b.Succs, at.Block(), map[*ssa.BasicBlock]bool{})
}

// failsOnly reports whether every return reachable from b returns a
// non-nil error.
func failsOnly(b *ssa.BasicBlock) bool {
	return failsOrReachesFrom([]*ssa.BasicBlock{b}, nil, map[*ssa.BasicBlock]bool{})
}

// failsOrReachesFrom reports whether every path from the blocks bs enters
// at (when not nil) or ends in a return of a non-nil error; a block with
// no successor panics, which fails the callback too.
func failsOrReachesFrom(bs []*ssa.BasicBlock, at *ssa.BasicBlock, seen map[*ssa.BasicBlock]bool) bool {
	for _, b := range bs {
		if b == at || seen[b] {
			continue // reached, or judged where first met
		}
		seen[b] = true
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			if !failingReturn(ret) {
				return false
			}
			continue
		}
		if !failsOrReachesFrom(b.Succs, at, seen) {
			return false
		}
	}
	return true
}

// failingReturn reports whether ret returns an error result that is not
// the constant nil.
func failingReturn(ret *ssa.Return) bool {
	if len(ret.Results) == 0 {
		return false
	}
	last := returned(ret, len(ret.Results)-1)
	return isError(last.Type()) && !isNilConst(last)
}

// index returns the position of instr in b.
func index(b *ssa.BasicBlock, instr ssa.Instruction) int {
	for i, in := range b.Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}
