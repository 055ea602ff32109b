package analyzer

import (
	"fmt"
	"github.com/idemkit/idem/analyzer/knowledge"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// codes are the diagnostics idemlint can emit. doc_test.go keeps the package
// documentation in sync with this table.
var codes = []struct{ code, title string }{
	{"IDEM000", "malformed //idem: directive"},
	{"IDEM001", "effect with no dedup check guarding it"},
	{"IDEM002", "ack before the effect"},
	{"IDEM003", "ack on a failure path"},
	{"IDEM004", "dedup check whose result decides nothing"},
	{"IDEM005", "check-then-act dedup (-strict)"},
	{"IDEM006", "dedup record and effect in different transactions"},
	{"IDEM007", "auto-ack consumer with effects"},
}

// report emits a diagnostic unless an //idem:ignore for its code is on its
// line or the line above. Messages end with the code, like staticcheck's.
func (a *pkgAnalysis) report(pos token.Pos, code string, related token.Pos, relatedMsg string, format string, args ...any) {
	if !pos.IsValid() || !a.cfg.report(code) {
		return
	}
	key := fmt.Sprint(pos, code)
	if a.seen[key] {
		return
	}
	a.seen[key] = true
	p := a.fset.Position(pos)
	if igs := a.dirs.ignores[p.Filename]; igs != nil {
		for _, l := range []int{p.Line, p.Line - 1} {
			for _, ig := range igs[l] {
				if ig.code == code {
					ig.used = true
					return
				}
			}
		}
	}
	d := analysis.Diagnostic{Pos: pos, Category: code, Message: fmt.Sprintf(format, args...) + " (" + code + ")"}
	if related.IsValid() && related != pos {
		d.Related = []analysis.RelatedInformation{{Pos: related, Message: relatedMsg}}
	}
	a.emit(d)
}

// suppressed reports whether an //idem:ignore for code covers pos.
func (a *pkgAnalysis) suppressed(pos token.Pos, code string) bool {
	p := a.fset.Position(pos)
	for _, l := range []int{p.Line, p.Line - 1} {
		for _, ig := range a.dirs.ignores[p.Filename][l] {
			if ig.code == code {
				return true
			}
		}
	}
	return false
}

func (a *pkgAnalysis) reportDirectives() {
	for _, b := range a.dirs.bad {
		a.emit(analysis.Diagnostic{Pos: b.pos, Category: "IDEM000", Message: b.msg + " (IDEM000)"})
	}
}

// handlerName names a function for messages.
func handlerName(fn *ssa.Function) string {
	if fn.Parent() != nil {
		return "func literal in " + handlerName(fn.Parent())
	}
	if obj, ok := fn.Object().(*types.Func); ok {
		if _, recv := knowledge.FuncKey(obj); recv != "" {
			return recv + "." + obj.Name()
		}
		return obj.Name()
	}
	return fn.Name()
}

// check reports the diagnostics of one function.
func (a *pkgAnalysis) check(fn *ssa.Function) {
	s := a.summary(fn)
	a.checkAutoAcks(s)
	for cl, c := range s.doTx {
		a.checkDoTx(cl, c)
	}
	if !s.root {
		return
	}
	name := handlerName(fn)
	if a.topRoot(s) {
		inScope := a.scope(s)
		for _, o := range s.occs {
			if !inScope[o.instr] {
				continue
			}
			covered := o.covered != nil && !a.suppressed(o.covered.pos, "IDEM004")
			switch {
			case o.guardedBy == nil && !covered:
				note := ""
				if c := s.invalidGuard(o.instr.Block()); c != nil {
					note = fmt.Sprintf(": the check %s guards nothing, %s", c.desc, c.invalid)
				}
				msg := "the effect"
				if o.innerMsg != "" {
					msg = o.innerMsg
				}
				a.report(o.pos, "IDEM001", o.inner, msg, "effect %s in handler %s is not guarded by a dedup check%s", o.desc, name, note)
			case o.guardedBy != nil:
				a.checkTx(s, o, name)
				if a.cfg.strict && o.guardedBy.kind == ckLookup {
					c := o.guardedBy
					a.report(c.pos, "IDEM005", o.pos, "the effect", "check-then-act dedup %s in handler %s is racy: a concurrent redelivery passes the lookup too before %s records the key; claim the key atomically (INSERT … ON CONFLICT DO NOTHING, SET NX)", c.desc, name, o.desc)
				}
			}
		}
		for _, c := range s.checks {
			if s.undecided(c) && inScope[c.call] {
				eff := ""
				for _, o := range s.occs {
					if o.covered == c {
						eff = "; " + o.desc + " runs for duplicates too"
						break
					}
				}
				// An INSERT … ON CONFLICT DO NOTHING (or a SET NX) with
				// nothing after it to guard is an idempotent write, not a
				// check: only a claim must always be decided.
				if eff == "" && c.kind != ckClaim {
					continue
				}
				a.report(c.pos, "IDEM004", token.NoPos, "", "result of dedup check %s in handler %s never decides a branch%s", c.desc, name, eff)
			}
		}
	}
	a.checkAckOrder(s, name)
	a.checkFailureAcks(s, name)
}

// scope returns the instructions of a root that handle a message: all of
// them for a handler with a message parameter, those reachable from a
// receive or fetch for a loop.
func (a *pkgAnalysis) scope(s *summary) map[ssa.Instruction]bool {
	in := map[ssa.Instruction]bool{}
	if s.param || len(s.sources) == 0 {
		for _, b := range s.fn.Blocks {
			for _, instr := range b.Instrs {
				in[instr] = true
			}
		}
		return in
	}
	for src := range s.srcSet {
		s.forward(src, func(instr ssa.Instruction) int {
			in[instr] = true
			return 0
		})
	}
	return in
}

// invalidGuard returns a check that would guard b but is invalid.
func (s *summary) invalidGuard(b *ssa.BasicBlock) *check {
	for _, d := range s.decisions {
		if d.fresh != nil && !d.chk.valid() && d.fresh.Dominates(b) && !s.reaches(d.other, b, d.blk) {
			return d.chk
		}
	}
	for _, c := range s.checks {
		if c.invalid != "" && c.call.Block() != nil && c.call.Block().Dominates(b) {
			return c
		}
	}
	return nil
}

// checkTx reports a guarded effect whose dedup record is written in another
// transaction (IDEM006): both in SQL (or both in Redis), and not through the
// same transaction value.
func (a *pkgAnalysis) checkTx(s *summary, o *occ, name string) {
	c := o.guardedBy
	if o.kind != c.store || !o.kind.Transactional() {
		return
	}
	if !o.direct || c.kind == ckFunc {
		a.checkHelperTx(o, c, name)
		return
	}
	if c.kind == ckLookup {
		a.checkLookupTx(s, o, c, name)
		return
	}
	if o.recv == nil || c.recv == nil {
		return
	}
	if root := txRoot(o.recv); o.kind == knowledge.SQL && sameValue(root, txRoot(c.recv)) && !a.pool(root) {
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
	if root := txRoot(o.recv); sameValue(root, txRoot(rec.recv)) && !a.pool(root) {
		return
	}
	what := "a crash between them runs the effect again on redelivery"
	if s.precedes(rec.instr, o.instr) {
		what = "a crash between them loses the effect, and the record says it was done"
	}
	a.report(o.pos, "IDEM006", rec.pos, "the dedup record", "dedup record %s (looked up by %s) and effect %s in handler %s are in different transactions: %s", rec.desc, c.desc, o.desc, name, what)
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
	if ro, _ := splitArgs(oc.Common()); o.direct && ro != nil && a.cat.TypeRole(txRoot(ro).Type()) == knowledge.PoolType {
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
	a.report(o.pos, "IDEM006", c.pos, "the dedup record", "dedup record %s and effect %s in handler %s are in different transactions: a crash between them loses the effect, and the record says it was done", c.desc, o.desc, name)
}

// callTx returns the SQL transaction a call is handed: as its receiver or an
// argument, or through the calls that built its receiver (q.WithTx(tx),
// db.New(tx)); nil when it has none.
func (a *pkgAnalysis) callTx(cc *ssa.CallCommon) ssa.Value {
	recv, args := splitArgs(cc)
	for _, v := range args {
		if a.cat.TypeRole(v.Type()) == knowledge.TxType {
			return txRoot(v)
		}
	}
	for range 8 {
		if recv == nil {
			return nil
		}
		if a.cat.TypeRole(recv.Type()) == knowledge.TxType {
			return txRoot(recv)
		}
		call, ok := peel(recv).(*ssa.Call)
		if !ok {
			return nil
		}
		r, args := splitArgs(call.Common())
		for _, v := range args {
			if a.cat.TypeRole(v.Type()) == knowledge.TxType {
				return txRoot(v)
			}
		}
		recv = r
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
		a.report(o.pos, "IDEM006", c.pos, "the dedup record", "effect %s in the apply function of %s does not use its transaction: the dedup record and the effect commit separately", o.desc, c.desc)
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

// sameValue reports whether two receivers are the same value.
func sameValue(x, y ssa.Value) bool {
	x, y = peel(x), peel(y)
	if x == y {
		return true
	}
	ux, ok1 := x.(*ssa.UnOp)
	uy, ok2 := y.(*ssa.UnOp)
	if ok1 && ok2 && ux.Op == token.MUL && uy.Op == token.MUL {
		fx, ok1 := ux.X.(*ssa.FieldAddr)
		fy, ok2 := uy.X.(*ssa.FieldAddr)
		if ok1 && ok2 {
			return fx.Field == fy.Field && sameValue(fx.X, fy.X)
		}
		return ux.X == uy.X
	}
	return false
}

// txRoot returns the transaction or client a statement runs on: it undoes
// embedded-field selections (sqlx.Tx embeds *sql.Tx) and builder chains
// (gorm's tx.Model(…).Where(…) runs on tx).
func txRoot(v ssa.Value) ssa.Value {
	for range 16 {
		v = peel(userRecv(peel(v)))
		call, ok := v.(*ssa.Call)
		if !ok || call.Call.IsInvoke() {
			return v
		}
		fn := callee(call.Common())
		recv, _ := splitArgs(call.Common())
		if fn == nil || recv == nil || !types.Identical(recv.Type(), call.Type()) || strings.HasPrefix(fn.Name(), "Begin") {
			return v
		}
		v = recv
	}
	return v
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
		orm := a.cat.ORM(fn.Pkg().Path())
		return orm == nil || fn.Name() != orm.Begin
	case *ssa.Parameter:
		return x.Parent().Parent() == nil // a closure's parameter: a Transaction callback
	}
	return true
}

// checkAckOrder reports acks that can run before an effect (IDEM002), and
// goroutines with effects not waited for before an ack.
func (a *pkgAnalysis) checkAckOrder(s *summary, name string) {
	for _, ack := range s.acks {
		if _, ok := ack.(*ssa.Defer); ok {
			continue
		}
		var eff *occ
		s.forwardUntil(ack, s.ackStops(ack), func(in ssa.Instruction) int {
			if eff = s.workAt(in); eff != nil {
				return 2
			}
			return 0
		})
		if eff != nil {
			a.report(ack.Pos(), "IDEM002", eff.pos, "the effect", "ack %s in handler %s comes before effect %s: a crash in between loses the message", describeCall(ack.Common()), name, eff.desc)
		}
	}
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			var work, what string
			switch in := instr.(type) {
			case *ssa.Go:
				work, what = a.goWork(s, in), "goroutine with effect %s"
			case *ssa.Send:
				work, what = a.handoffWork(s, in), "message handed over a channel to a goroutine with effect %s"
			}
			if work == "" {
				continue
			}
			g := instr
			var ack ssa.Instruction
			s.forward(g, func(in ssa.Instruction) int {
				if s.waits[in] {
					return 1
				}
				for _, x := range s.acks {
					if x == in {
						ack = in
						return 2
					}
				}
				// A handler acked by its result: returning the acking
				// value acks the message.
				if r, ok := in.(*ssa.Return); ok && a.returnAcks(s, r) {
					ack = in
					return 2
				}
				return 0
			})
			if ack != nil {
				a.report(g.Pos(), "IDEM002", ack.Pos(), "the ack", what+" in handler %s is not waited for before the ack: a crash loses the message", work, name)
			}
		}
	}
}

// returnAcks reports whether the return r acks the message: s's function
// is a handler whose dispatcher acks by its result (or one acked by
// returning nil, as asynq's and watermill's) and r returns the acking value.
func (a *pkgAnalysis) returnAcks(s *summary, r *ssa.Return) bool {
	if !s.param || !r.Pos().IsValid() || len(r.Results) == 0 {
		return false
	}
	if ra, ok := a.resultAck[s.fn]; ok {
		return ra.acks(r.Results[ra.index])
	}
	return a.returnAcked(s.fn) && isNilConst(r.Results[len(r.Results)-1])
}

// handoffWork describes the effect of the workers a channel send hands a
// value to: goroutines started in the same function whose closure captures
// the channel (a worker pool); "" when there are none or they do nothing.
func (a *pkgAnalysis) handoffWork(s *summary, send *ssa.Send) string {
	ch := peel(send.Chan)
	if ld, ok := ch.(*ssa.UnOp); ok && ld.Op == token.MUL {
		ch = ld.X // a captured variable: the closure binds its address
	}
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			g, ok := instr.(*ssa.Go)
			if !ok {
				continue
			}
			mc, ok := g.Call.Value.(*ssa.MakeClosure)
			if !ok {
				continue
			}
			for _, v := range mc.Bindings {
				if v == ch || peel(v) == ch {
					if w := a.goWork(s, g); w != "" {
						return w
					}
				}
			}
		}
	}
	return ""
}

// ackStops returns where the paths after an ack end: at the next message,
// except that an ack outside the loop over a fetched batch (XAck of every
// id of the batch, before handling them) acks the whole batch, so the
// batch's elements do not end its paths.
func (s *summary) ackStops(ack ssa.Instruction) map[ssa.Instruction]bool {
	for in := range s.elems {
		if in.Block().Dominates(ack.Block()) {
			return s.srcSet // an ack of one element
		}
	}
	if len(s.elems) == 0 {
		return s.srcSet
	}
	stop := map[ssa.Instruction]bool{}
	for in := range s.srcSet {
		if !s.elems[in] {
			stop[in] = true
		}
	}
	return stop
}

// workAt returns the effect at instruction in: an occurrence, or a guard
// call (guard's Do or Run, a generated Handle, an adapter) whose guarded
// effect runs inside; nil when in does no work.
func (s *summary) workAt(in ssa.Instruction) *occ {
	if os := s.byInstr[in]; len(os) > 0 {
		return os[0]
	}
	if d := s.dispatch[in]; d != nil {
		return d
	}
	if s.guardWork == nil {
		s.guardWork = map[ssa.Instruction]*occ{}
		for _, c := range s.checks {
			if c.kind == ckGuardDo && c.valid() {
				s.guardWork[c.call] = &occ{instr: c.call, pos: c.pos, desc: c.desc + " (guarded)", param: -1}
			}
		}
	}
	return s.guardWork[in]
}

// firstWork returns the first occurrence or guard call of s, nil if none.
func (s *summary) firstWork() *occ {
	if len(s.occs) > 0 {
		return s.occs[0]
	}
	for _, c := range s.checks {
		if c.kind == ckGuardDo && c.valid() {
			return s.workAt(c.call)
		}
	}
	return nil
}

// goWork describes the effect a go statement starts: an unguarded one, or
// one a dedup check guards inside the goroutine (guard's Do, a generated
// Handle) — guarded or not, it is lost if the process dies after the ack.
// "" when the goroutine has no effect.
func (a *pkgAnalysis) goWork(s *summary, g *ssa.Go) string {
	if os := s.byInstr[g]; len(os) > 0 {
		return os[0].desc
	}
	f := funcValue(g.Call.Value)
	if f == nil {
		f = g.Call.StaticCallee()
	}
	if f == nil || f.Blocks == nil {
		return ""
	}
	gs := a.summary(f)
	w := gs.firstWork()
	switch {
	case w == nil:
		return ""
	case len(gs.occs) > 0:
		return w.desc + " (guarded)" // an effect guarded inside the goroutine
	}
	return w.desc // a guard call, "(guarded)" already
}

// checkFailureAcks reports acks on failure paths (IDEM003): a deferred ack,
// an ack that runs after an effect or a processing step failed, and a
// handler acked by its return that returns success after a failure.
func (a *pkgAnalysis) checkFailureAcks(s *summary, name string) {
	a.collectBenign(s)
	hasFailure := len(s.failures) > 0 || len(s.occs) > 0 || len(s.checks) > 0 // a guard's Do can fail too
	for _, ack := range s.acks {
		if d, ok := ack.(*ssa.Defer); ok {
			if hasFailure {
				a.report(d.Pos(), "IDEM003", token.NoPos, "", "deferred ack %s in handler %s also runs when handling fails: the error is swallowed and the message lost", describeCall(ack.Common()), name)
			}
			continue
		}
		if f := s.failureBefore(ack.Block()); f != nil {
			a.report(ack.Pos(), "IDEM003", f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "ack %s in handler %s also runs when %s fails: the error is swallowed and the message lost", describeCall(ack.Common()), name, f.what)
		}
	}
	// Deferred closures that ack.
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok {
				continue
			}
			if f := funcValue(d.Call.Value); f != nil && f.Parent() == s.fn && len(a.summary(f).acks) > 0 && hasFailure {
				a.report(d.Pos(), "IDEM003", token.NoPos, "", "deferred ack in handler %s also runs when handling fails: the error is swallowed and the message lost", name)
			}
		}
	}
	if !s.param {
		return
	}
	ra, byResult := a.resultAck[s.fn]
	if !byResult && !a.returnAcked(s.fn) {
		return
	}
	res := s.fn.Signature.Results()
	for _, b := range s.fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || !r.Pos().IsValid() {
			continue
		}
		if byResult {
			// The dispatcher acks on this result's value: a return of that
			// value after a failure loses the message.
			if !ra.acks(r.Results[ra.index]) {
				continue
			}
			if f := s.failureBefore(b); f != nil {
				a.report(r.Pos(), "IDEM003", f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "handler %s returns %s when %s fails, and its dispatcher acks on that: the message is lost", name, ra, f.what)
			}
			continue
		}
		if !isNilConst(r.Results[res.Len()-1]) {
			continue
		}
		if res.Len() == 2 { // rocketmq: (ConsumeResult, error)
			if n, ok := constInt(r.Results[0]); !ok || n != 0 {
				continue
			}
		}
		if f := s.failureBefore(b); f != nil {
			a.report(r.Pos(), "IDEM003", f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "handler %s returns success when %s fails: the message is acked and lost", name, f.what)
		}
	}
}

// returnAcked reports whether fn is a handler acked by its return value:
// asynq, watermill router handlers, RocketMQ push consumers.
func (a *pkgAnalysis) returnAcked(fn *ssa.Function) bool {
	res := fn.Signature.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	params := fn.Params
	if fn.Signature.Recv() != nil && len(params) > 0 {
		params = params[1:]
	}
	for _, p := range params {
		t := derefType(p.Type())
		if sl, ok := t.Underlying().(*types.Slice); ok {
			t = derefType(sl.Elem())
		}
		if m := a.cat.Message(t); m != nil && m.ReturnAck {
			return true
		}
	}
	return false
}

// failureBefore returns an error branch whose failure side reaches b, unless
// b is on a side that handles the error deliberately (a duplicate, a
// permanent error, a unique violation).
func (s *summary) failureBefore(b *ssa.BasicBlock) *decision {
	for _, bb := range s.benign {
		if bb.side.Dominates(b) && !s.reaches(bb.other, b, bb.blk) {
			return nil
		}
	}
	for _, d := range s.decisions {
		for i, succ := range d.blk.Succs {
			if d.succ[i] == implDup && succ.Dominates(b) && !s.reaches(d.blk.Succs[1-i], b, d.blk) {
				return nil
			}
		}
	}
	for _, f := range s.failures {
		// A failure side that is a join (a loop header reached by continue)
		// dominates nothing in particular: only paths count.
		if f.fresh == b && len(b.Preds) == 1 || len(f.fresh.Preds) == 1 && f.fresh.Dominates(b) && !s.retested(f, b) || s.failureReaches(f, b) {
			return f
		}
	}
	return nil
}

// failureReaches reports whether b can be reached from f's failure side
// without passing f's test again, nor the success side of a later test of
// the same error (a retry loop that breaks on success and tests the error
// once more after the loop).
func (s *summary) failureReaches(f *decision, b *ssa.BasicBlock) bool {
	cut := s.retests(f)
	return pathTo([]*ssa.BasicBlock{f.fresh}, b, f.blk, func(x *ssa.BasicBlock) []*ssa.BasicBlock {
		if s.hasSource(x) {
			return nil
		}
		var out []*ssa.BasicBlock
		for _, succ := range x.Succs {
			if cut[x] != succ {
				out = append(out, succ)
			}
		}
		return out
	})
}

// retested reports whether a later test of f's error stands between f's
// failure side and b, its success side leading to b.
func (s *summary) retested(f *decision, b *ssa.BasicBlock) bool {
	for blk, succ := range s.retests(f) {
		if succ.Dominates(b) && f.fresh.Dominates(blk) {
			return true
		}
	}
	return false
}

// retests maps the blocks of the other failure tests of f's error (the same
// value, or a phi merging it) to their success successor.
func (s *summary) retests(f *decision) map[*ssa.BasicBlock]*ssa.BasicBlock {
	cut := map[*ssa.BasicBlock]*ssa.BasicBlock{}
	if f.err == nil {
		return cut
	}
	for _, g := range s.failures {
		if g == f || g.err == nil {
			continue
		}
		same := g.err == f.err
		if phi, ok := g.err.(*ssa.Phi); ok {
			for _, e := range phi.Edges {
				if e == f.err {
					same = true
				}
			}
		}
		if same {
			cut[g.blk] = g.other
		}
	}
	return cut
}

// collectBenign finds the sides of branches that classify an error on
// purpose: errors.Is/As, guard.Permanent, helpers named like IsDuplicate,
// IsPermanent, IsNotFound.
func (a *pkgAnalysis) collectBenign(s *summary) {
	if s.benign != nil {
		return
	}
	s.benign = []benignSide{}
	for _, b := range s.fn.Blocks {
		in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cond, side := in.Cond, 0
		if u, ok := cond.(*ssa.UnOp); ok && u.Op == token.NOT {
			cond, side = u.X, 1
		}
		if c, ok := cond.(*ssa.Call); ok {
			if fn := callee(c.Common()); fn != nil && a.benignName(fn) {
				s.benign = append(s.benign, benignSide{b, b.Succs[side], b.Succs[1-side]})
			}
		}
		if bin, ok := cond.(*ssa.BinOp); ok && (bin.Op == token.EQL || bin.Op == token.NEQ) {
			if globalName(bin.X) != "" || globalName(bin.Y) != "" || uniqueCode(a.cat, bin.X) || uniqueCode(a.cat, bin.Y) {
				if isError(bin.X.Type()) || uniqueCode(a.cat, bin.X) || uniqueCode(a.cat, bin.Y) {
					eq := 0
					if bin.Op == token.NEQ {
						eq = 1
					}
					s.benign = append(s.benign, benignSide{b, b.Succs[eq^side], b.Succs[1-(eq^side)]})
				}
			}
		}
	}
}

// benignSide is the side of a branch that handles an error on purpose.
type benignSide struct{ blk, side, other *ssa.BasicBlock }

func (a *pkgAnalysis) benignName(fn *types.Func) bool {
	if a.cat.Has(fn, knowledge.Benign) {
		return true
	}
	n := strings.ToLower(fn.Name())
	for _, w := range []string{"dup", "unique", "permanent", "notfound", "invalid", "conflict", "exists", "retryable", "temporary", "transient", "poison"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// checkAutoAcks reports consumers that ack before handling (IDEM007).
func (a *pkgAnalysis) checkAutoAcks(s *summary) {
	for _, aa := range s.autoAcks {
		var eff *occ
		var where *ssa.Function
		switch aa.kind {
		case knowledge.AutoAckConsume:
			eff, where = a.effectAfterReceive(s, aa.ch, 0)
		case knowledge.AutoAckRead:
			// The whole batch is committed: elements do not end the path.
			stop := map[ssa.Instruction]bool{}
			for in := range s.srcSet {
				if !s.elems[in] {
					stop[in] = true
				}
			}
			s.forwardUntil(aa.call, stop, func(in ssa.Instruction) int {
				if eff = s.workAt(in); eff != nil {
					return 2
				}
				return 0
			})
			where = s.fn
		case knowledge.Subscribe:
			if f := funcValue(aa.cb); f != nil && f.Blocks != nil {
				if w := a.summary(f).firstWork(); w != nil {
					eff, where = w, f
				}
			}
		}
		if eff == nil {
			continue
		}
		a.report(aa.call.Pos(), "IDEM007", eff.pos, "the effect", "auto-ack consumer %s acks each message before handler %s performs %s: a crash loses the message", describeCall(aa.call.Common())+autoAckNote(aa.kind), handlerName(where), eff.desc)
	}
}

func autoAckNote(r knowledge.Role) string {
	switch r {
	case knowledge.AutoAckConsume:
		return " (autoAck true)"
	case knowledge.AutoAckRead:
		return " (commits by itself)"
	case knowledge.Subscribe:
		return " (no ManualAck)"
	}
	return ""
}

// effectAfterReceive finds an effect after a receive from the deliveries
// channel ch: in s's function, or in a function of the package ch is passed
// to (as an argument or a captured variable).
func (a *pkgAnalysis) effectAfterReceive(s *summary, ch ssa.Value, depth int) (*occ, *ssa.Function) {
	if ch == nil || depth > 2 {
		return nil, nil
	}
	for _, r := range *ch.Referrers() {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op != token.ARROW {
				continue
			}
			var eff *occ
			s.forward(r, func(in ssa.Instruction) int {
				if eff = s.workAt(in); eff != nil {
					return 2
				}
				return 0
			})
			if eff != nil {
				return eff, s.fn
			}
		case ssa.CallInstruction:
			f := r.Common().StaticCallee()
			if f == nil || f.Blocks == nil {
				continue
			}
			_, args := splitArgs(r.Common())
			for i, x := range r.Common().Args {
				if x != ch {
					continue
				}
				_ = args
				if i < len(f.Params) {
					if eff, w := a.effectAfterReceive(a.summary(f), f.Params[i], depth+1); eff != nil {
						return eff, w
					}
				}
			}
		case *ssa.MakeClosure:
			f, _ := r.Fn.(*ssa.Function)
			if f == nil {
				continue
			}
			for i, b := range r.Bindings {
				if b == ch && i < len(f.FreeVars) {
					if eff, w := a.effectAfterReceive(a.summary(f), f.FreeVars[i], depth+1); eff != nil {
						return eff, w
					}
				}
			}
		}
	}
	return nil, nil
}

var _ = ast.Inspect
