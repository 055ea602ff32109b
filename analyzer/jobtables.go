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
// table; "" when fn claims nothing.
func (a *pkgAnalysis) claimedItems(fn *ssa.Function) (items, string) {
	it := items{vals: map[ssa.Value]bool{}}
	table := ""
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			t := a.claimOf(call)
			if t == "" {
				continue
			}
			table = t
			it.vals[call] = true
			_, args := splitArgs(call.Common())
			for _, x := range pointers(args) {
				it.vals[x] = true // sqlx's Get(&job, q, …)
			}
			for _, res := range []ssa.Value{call, result(call, 0)} {
				for _, x := range scannedInto(res) {
					it.vals[x] = true
				}
			}
		}
	}
	return it, table
}

// claimOf returns the table call claims a job from: a catalogued SQL
// execution or query whose constant text is a claim (sqlclass.ClaimTable).
func (a *pkgAnalysis) claimOf(call *ssa.Call) string {
	for _, q := range a.sqlTexts(call) {
		if t := sqlclass.ClaimTable(q); t != "" {
			return t
		}
	}
	return ""
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

// jobBookkeeping reports whether f writes a claimed job table: the job
// queue's own release, retry or completion of a job it is handed, not a
// handler of it.
func (a *pkgAnalysis) jobBookkeeping(f *ssa.Function, depth int) bool {
	if len(a.claimTables) == 0 || f == nil || f.Blocks == nil || depth > 2 {
		return false
	}
	for _, b := range f.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			for _, q := range a.sqlTexts(call) {
				if c := sqlclass.Classify(q); c.Write && a.claimTables[c.Table] {
					return true
				}
			}
			if g := call.Common().StaticCallee(); g != nil && a.local(pkgOf(g)) && a.jobBookkeeping(built(g), depth+1) {
				return true
			}
		}
	}
	return false
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
