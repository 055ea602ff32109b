package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A service's own job table. Services that keep their jobs in their own
// database take the next one with a claim, one statement that moves the
// row on and returns it (sqlclass.ClaimTable):
//
//	UPDATE jobs SET status = 'running' WHERE id = (SELECT id FROM jobs
//	  WHERE status = 'pending' ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
//	RETURNING *
//
// and hand the row, or a job built from it, to the handler registered for
// its type: a function value or an interface method (job.Process(ctx)).
// The claimed rows are the queue's items, as a received item is for the
// program's own queues (queues.go): the functions they are dispatched to
// are handlers, acked by a nil error; a job whose handler fails is
// released or retried by the worker, one that succeeds is deleted or
// marked done. The claim may sit in a repository whose method returns the
// row: its callers' results are then the items. An insert into a claimed
// table enqueues a job: it publishes.

// findClaimHandlers marks the handlers of the program's own job tables as
// dispatched (see above).
func (a *pkgAnalysis) findClaimHandlers() {
	var claimers []*ssa.Function
	found := map[*ssa.Function]items{}
	for _, fn := range a.funcs {
		if it, table := a.claimedItems(fn); table != "" {
			a.claimTables[table] = true
			claimers = append(claimers, fn)
			found[fn] = it
		}
	}
	if len(claimers) == 0 {
		return
	}
	callers := a.callSites()
	for _, fn := range claimers {
		a.dispatchClaimed(fn, found[fn], callers, 0, map[*ssa.Function]bool{})
	}
}

// dispatchClaimed dispatches the claimed rows fn holds (see
// dispatchItems) and, when fn returns them, the results of its callers'
// calls, up to two callers up.
func (a *pkgAnalysis) dispatchClaimed(fn *ssa.Function, it items, callers map[*ssa.Function][]ssa.CallInstruction, depth int, seen map[*ssa.Function]bool) {
	a.dispatchItems(fn, it, 0, seen)
	if depth >= 2 || !a.returnsItems(fn, it) {
		return
	}
	for _, site := range callers[fn] {
		if v := site.Value(); v != nil && !seen[site.Parent()] {
			a.dispatchClaimed(site.Parent(), items{vals: map[ssa.Value]bool{v: true}}, callers, depth+1, seen)
		}
	}
}

// claimedItems returns the values of fn that hold the rows a claim of its
// returns (the call's rows, what they are scanned into), and the claimed
// table; "" when fn claims nothing. The claim is one statement
// (sqlclass.ClaimTable), or a pick and a conditional update of the same
// table (sqlclass.ClaimPair): then every read of that table in fn (the
// pick, a read of the claimed row by its id) holds the rows.
func (a *pkgAnalysis) claimedItems(fn *ssa.Function) (items, string) {
	it := items{vals: map[ssa.Value]bool{}}
	table := ""
	texts := map[*ssa.Call][]string{}
	var calls []*ssa.Call
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			qs := a.sqlTexts(call)
			if len(qs) == 0 {
				continue
			}
			calls, texts[call] = append(calls, call), qs
			for _, q := range qs {
				if t := sqlclass.ClaimTable(q); t != "" {
					table = t
					it.hold(call)
					break
				}
			}
		}
	}
	if table != "" {
		return it, table
	}
	table = claimPair(calls, texts)
	if table == "" {
		return it, ""
	}
	for _, call := range calls {
		for _, q := range texts[call] {
			if c := sqlclass.Classify(q); c.Lookup && !c.Write && sqlclass.FromTable(q) == table {
				it.hold(call)
				break
			}
		}
	}
	return it, table
}

// claimPair returns the table a pick and an update among calls claim a
// job from (sqlclass.ClaimPair); "" if none do.
func claimPair(calls []*ssa.Call, texts map[*ssa.Call][]string) string {
	for _, pick := range calls {
		for _, upd := range calls {
			if upd == pick {
				continue
			}
			for _, p := range texts[pick] {
				for _, u := range texts[upd] {
					if t := sqlclass.ClaimPair(p, u); t != "" {
						return t
					}
				}
			}
		}
	}
	return ""
}

// hold adds to it the rows call returns: the call, what it scans into
// (rows.Scan(&job.ID, …)) and the pointers it fills (sqlx's Get(&job, q,
// …)).
func (it items) hold(call *ssa.Call) {
	it.vals[call] = true
	_, args := splitArgs(call.Common())
	for _, x := range pointers(args) {
		it.vals[x] = true
	}
	for _, res := range []ssa.Value{call, result(call, 0)} {
		for _, x := range scannedInto(res) {
			it.vals[x] = true
		}
	}
}

// sqlTexts returns the constant texts a catalogued SQL execution or query
// runs; nil for any other call or a text not known.
func (a *pkgAnalysis) sqlTexts(call *ssa.Call) []string {
	fn := callee(call.Common())
	if fn == nil {
		return nil
	}
	var out []string
	for _, r := range rulesOf(a.cat, fn) {
		if r.Kind != knowledge.SQL || r.Mode != knowledge.SQLQuery && r.Mode != knowledge.SQLExec {
			continue
		}
		_, args := splitArgs(call.Common())
		if texts, _, ok := a.texts(arg(args, r.arg), 0); ok {
			out = append(out, texts...)
		}
	}
	return out
}

// returnsItems reports whether fn returns one of it's items (other than
// an error).
func (a *pkgAnalysis) returnsItems(fn *ssa.Function, it items) bool {
	for _, b := range fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for _, v := range r.Results {
			if !isError(v.Type()) && a.carries(it, v, 0) {
				return true
			}
		}
	}
	return false
}

// callSites returns, for each function of the program, the calls that
// can run it: static calls and the dynamic calls the call graph resolves;
// built once.
func (a *pkgAnalysis) callSites() map[*ssa.Function][]ssa.CallInstruction {
	if a.sites != nil {
		return a.sites
	}
	a.sites = map[*ssa.Function][]ssa.CallInstruction{}
	for _, fn := range a.funcs {
		for ci := range callsIn(fn) {
			for _, f := range a.calleesOf(ci) {
				a.sites[built(f)] = append(a.sites[built(f)], ci)
			}
		}
	}
	return a.sites
}

// jobBookkeeping reports whether f only keeps a claimed job table: it
// writes that table (the queue's own release, retry or completion of a
// job it is handed) and does nothing else, so it is no handler of the
// job. A handler that also reports its progress on the job's row writes
// other tables or calls the program through an interface: it is one.
func (a *pkgAnalysis) jobBookkeeping(f *ssa.Function, depth int) bool {
	if len(a.claimTables) == 0 {
		return false
	}
	job, other := a.jobWrites(f, depth)
	return job && !other
}

// jobWrites reports whether f, or a function of the program it calls (at
// most two calls deep), writes a claimed job table, and whether it writes
// another table or calls the program's code through an interface or a
// func value.
func (a *pkgAnalysis) jobWrites(f *ssa.Function, depth int) (job, other bool) {
	if f == nil || f.Blocks == nil || depth > 2 {
		return false, false
	}
	for ci := range callsIn(f) {
		cc := ci.Common()
		if call, ok := ci.(*ssa.Call); ok {
			for _, q := range a.sqlTexts(call) {
				if c := sqlclass.Classify(q); c.Write {
					if a.claimTables[c.Table] {
						job = true
					} else {
						other = true
					}
				}
			}
		}
		g := cc.StaticCallee()
		if g == nil {
			for _, h := range a.callees[ci] {
				if a.local(h.Pkg) {
					other = true
				}
			}
			continue
		}
		if a.local(pkgOf(g)) {
			j, o := a.jobWrites(built(g), depth+1)
			job, other = job || j, other || o
		}
	}
	return job, other
}

// scannedInto returns the destinations the methods of a statement's result
// fill: the pointers handed to its Scan (database/sql, pgx:
// Scan(&j.ID, &j.Type)) or to a chained ORM call (gorm's Raw(q).Scan(&row)).
func scannedInto(res ssa.Value) []ssa.Value {
	if res == nil || res.Referrers() == nil {
		return nil
	}
	var out []ssa.Value
	for _, r := range *res.Referrers() {
		c, ok := r.(*ssa.Call)
		if !ok {
			continue
		}
		recv, args := splitArgs(c.Common())
		if recv != res {
			continue
		}
		out = append(out, pointers(args)...)
	}
	return out
}

// pointers returns the pointers among args, as given, converted to an
// interface (gorm's Scan(dest any), sqlx's Get(dest any, …)) or in a
// variadic slice (database/sql's Scan(&j.ID, &j.Type)).
func pointers(args []ssa.Value) []ssa.Value {
	var out []ssa.Value
	var all []ssa.Value
	for _, x := range args {
		if elems := sliceElems(x); len(elems) > 0 {
			all = append(all, elems...)
		} else {
			all = append(all, x)
		}
	}
	for _, x := range all {
		if mi, ok := x.(*ssa.MakeInterface); ok {
			x = mi.X
		}
		if _, ptr := x.Type().Underlying().(*types.Pointer); ptr {
			out = append(out, x)
			if fa, ok := x.(*ssa.FieldAddr); ok {
				out = append(out, fa.X) // Scan(&j.ID): the row j
			}
		}
	}
	return out
}
