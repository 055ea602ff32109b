package analyzer

import (
	"go/token"
	"go/types"
	"slices"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A service's own queue layer. Large services write their own persistent
// queues (work queues over Redis lists or LevelDB, event spools on disk):
// no broker client is involved, so neither a catalogued message type nor a
// registration API shows where messages enter. The
// queue is recognised by its shape instead: a package of the program that
// both serializes and decodes values (items are stored and read back — an
// in-memory worker pool does neither) and hands an item it received from a
// channel to a function value or an interface method, directly or through
// its own functions. The functions reached that way are handlers; their
// dispatcher treats a nil error (or no items handed back, for a handler that
// returns the items it did not handle) as done. The queue package's own
// writes (the RPUSH that stores an item) are publishing, not effects of the
// handler that pushes another item.

// findQueueHandlers marks the handlers of the program's own queues as
// dispatched (see above); findHandlers then follows them as it follows
// every dispatched handler.
func (a *pkgAnalysis) findQueueHandlers() {
	ser, de := a.reaching(knowledge.Serialize), a.reaching(knowledge.Deserialize)
	a.encoders = ser
	encodes, decodes := map[*ssa.Package]bool{}, map[*ssa.Package]bool{}
	for f := range ser {
		encodes[f.Pkg] = true
	}
	for f := range de {
		decodes[f.Pkg] = true
	}
	for _, fn := range a.funcs {
		if !encodes[fn.Pkg] || !decodes[fn.Pkg] {
			continue
		}
		if items := a.receivedItems(fn); len(items.vals) > 0 || len(items.sel) > 0 {
			if a.dispatchItems(fn, items, 0, map[*ssa.Function]bool{}) {
				a.queuePkgs[fn.Pkg] = true
			}
		}
	}
}

// reaching returns the program's functions that call a function of role r,
// directly or through the program's functions they call (statically, or
// dynamically within their package).
func (a *pkgAnalysis) reaching(r knowledge.Role) map[*ssa.Function]bool {
	set := map[*ssa.Function]bool{}
	callers := map[*ssa.Function][]*ssa.Function{}
	var work []*ssa.Function
	for _, fn := range a.funcs {
		for ci := range callsIn(fn) {
			if a.cat.Has(callee(ci.Common()), r) && !set[fn] {
				set[fn] = true
				work = append(work, fn)
			}
			if f := ci.Common().StaticCallee(); f != nil {
				callers[built(f)] = append(callers[built(f)], fn)
			}
			// Through a dynamic call only within a package (a JSON
			// wrapper's handler interface): through a callback, every
			// dispatcher would reach everything.
			for _, f := range a.callees[ci] {
				if pkgOf(f) == pkgOf(fn) {
					callers[f] = append(callers[f], fn)
				}
			}
		}
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range callers[f] {
			if !set[c] {
				set[c] = true
				work = append(work, c)
			}
		}
	}
	return set
}

// items are the values of a function that carry a queue item: receives
// from a channel of items, and the parameters an item was passed to.
type items struct {
	vals map[ssa.Value]bool
	sel  map[*ssa.Select]map[int]bool // select results (Extract indexes) that are received items
}

// receivedItems returns fn's receives from channels whose elements can be
// items: not signals (struct{}, bool, numbers, errors, contexts, times,
// funcs, channels).
func (a *pkgAnalysis) receivedItems(fn *ssa.Function) items {
	it := items{vals: map[ssa.Value]bool{}, sel: map[*ssa.Select]map[int]bool{}}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.UnOp:
				if in.Op == token.ARROW && itemChan(in.X.Type()) {
					it.vals[in] = true
				}
			case *ssa.Select:
				k := 0
				for _, st := range in.States {
					if st.Dir != types.RecvOnly {
						continue
					}
					if itemChan(st.Chan.Type()) {
						if it.sel[in] == nil {
							it.sel[in] = map[int]bool{}
						}
						it.sel[in][2+k] = true
					}
					k++
				}
			}
		}
	}
	return it
}

// itemChan reports whether t is a channel whose elements can be queue
// items rather than signals.
func itemChan(t types.Type) bool {
	ch, ok := t.Underlying().(*types.Chan)
	if !ok {
		return false
	}
	e := ch.Elem()
	if n, ok := types.Unalias(e).(*types.Named); ok && n.Obj().Pkg() != nil {
		switch n.Obj().Pkg().Path() {
		case "time", "context", "os", "syscall":
			return false
		}
	}
	switch u := e.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.String
	case *types.Struct:
		return u.NumFields() > 0
	case *types.Signature, *types.Chan:
		return false
	case *types.Interface:
		return !isError(e)
	}
	return true
}

// carries reports whether v carries one of it's items: the item itself, a
// part of it, a value built from it (a decoded copy, a slice or batch of
// items), through a bounded number of steps.
func (a *pkgAnalysis) carries(it items, v ssa.Value, depth int) bool {
	if v == nil || depth > 8 {
		return false
	}
	if it.vals[v] {
		return true
	}
	switch v := v.(type) {
	case *ssa.Extract:
		if sel, ok := v.Tuple.(*ssa.Select); ok {
			return it.sel[sel][v.Index]
		}
		return a.carries(it, v.Tuple, depth+1)
	case *ssa.UnOp:
		return v.Op != token.ARROW && a.carries(it, v.X, depth+1)
	case *ssa.FieldAddr, *ssa.Field, *ssa.IndexAddr, *ssa.Index, *ssa.Slice,
		*ssa.MakeInterface, *ssa.ChangeType, *ssa.Convert, *ssa.TypeAssert:
		// A part, a view or a conversion of the value it is made from.
		return a.carries(it, *v.(ssa.Instruction).Operands(nil)[0], depth+1)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if a.carries(it, e, depth+1) {
				return true
			}
		}
	case *ssa.Alloc:
		// A slice literal or a local of items: a store of an item into it.
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr == v && a.carries(it, r.Val, depth+1) {
					return true
				}
			case *ssa.IndexAddr:
				for _, rr := range *r.Referrers() {
					if st, ok := rr.(*ssa.Store); ok && st.Addr == r && a.carries(it, st.Val, depth+1) {
						return true
					}
				}
			}
		}
	case *ssa.Call:
		// A value decoded or built from an item by the program's own
		// function (or append).
		if f := v.Call.StaticCallee(); f != nil && a.encoders[origin(f)] {
			return false // an item encoded to be stored again, not handled
		}
		if _, ok := v.Call.Value.(*ssa.Builtin); ok || v.Call.StaticCallee() != nil {
			for _, x := range v.Call.Args {
				if a.carries(it, x, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// dispatchItems follows fn's calls that are given an item: a dynamic call
// dispatches the item to its callees (handlers); a static call of the
// program's own function is followed into it, the parameters given an item
// being items there. It reports whether it dispatched any.
func (a *pkgAnalysis) dispatchItems(fn *ssa.Function, it items, depth int, seen map[*ssa.Function]bool) (found bool) {
	if seen[fn] {
		return false
	}
	seen[fn] = true
	for ci := range callsIn(fn) {
		cc := ci.Common()
		var given []int
		for i, x := range cc.Args {
			if a.carries(it, x, 0) && !opaque(paramType(cc, i)) && !scalar(x.Type()) {
				given = append(given, i)
			}
		}
		// An item whose method is called (job.Process(ctx)): a job
		// dispatched to its own handler.
		self := cc.IsInvoke() && a.carries(it, cc.Value, 0)
		if len(given) == 0 && !self {
			continue
		}
		if _, ok := cc.Value.(*ssa.Builtin); ok {
			continue
		}
		if f := cc.StaticCallee(); f != nil {
			f = built(f)
			// The queue's own functions only: beyond its package an
			// item is the handler's business.
			if depth >= 4 || pkgOf(f) != pkgOf(fn) || f.Blocks == nil || len(given) == 0 {
				continue
			}
			sub := items{vals: map[ssa.Value]bool{}}
			for _, i := range given {
				if i < len(f.Params) {
					sub.vals[f.Params[i]] = true
				}
			}
			found = a.dispatchItems(f, sub, depth+1, seen) || found
			continue
		}
		if cc.IsInvoke() && a.cat.Lookup(cc.Method) != nil {
			continue // a client's interface: the catalog says what it is
		}
		item := cc.Value
		if len(given) > 0 {
			item = cc.Args[given[0]]
		}
		for _, f := range a.callees[ci] {
			if f.Parent() == fn || !a.local(f.Pkg) || a.jobBookkeeping(f, 0) {
				continue
			}
			a.dispatched[f] = true
			a.dispatchSites[f] = append(a.dispatchSites[f], ci)
			a.queueTo(f, ci, item)
			found = true
		}
	}
	return found
}

// itemsAck says how a queue acks by the result of its call ci to a handler
// given item: nil for a result of the item's own type (the items it did
// not handle, handed back), else nil for an error result.
func itemsAck(ci ssa.CallInstruction, item ssa.Value) (resultAck, bool) {
	res := ci.Common().Signature().Results()
	for i := 0; i < res.Len(); i++ {
		if sameItems(res.At(i).Type(), item.Type()) {
			return resultAck{index: i, isErr: true}, true
		}
	}
	if n := res.Len(); n > 0 && isError(res.At(n-1).Type()) {
		return resultAck{index: n - 1, isErr: true}, true
	}
	return resultAck{}, false
}

// paramItems returns fn's parameters as items: what a queue handler is
// given.
func paramItems(fn *ssa.Function) items {
	it := items{vals: map[ssa.Value]bool{}}
	for _, p := range fn.Params {
		it.vals[p] = true
	}
	return it
}

// sameItems reports whether x and y are slices of the same items: of
// identical element types, or of a type parameter (a generic queue's T).
func sameItems(x, y types.Type) bool {
	xs, ok := x.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	ys, ok := y.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	_, xp := types.Unalias(xs.Elem()).(*types.TypeParam)
	_, yp := types.Unalias(ys.Elem()).(*types.TypeParam)
	return xp || yp || types.Identical(xs.Elem(), ys.Elem())
}

// queueOn carries the queue's protocol from fn, a queue handler, to f, the
// handler fn's call ci hands its items to.
func (a *pkgAnalysis) queueOn(fn *ssa.Function, ci ssa.CallInstruction, f *ssa.Function) {
	it := paramItems(fn)
	for _, x := range ci.Common().Args {
		if !a.carries(it, x, 0) {
			continue
		}
		a.queueTo(f, ci, x)
		return
	}
}

// pkgOf returns f's package; an instance of a generic function has none of
// its own, its origin's.
func pkgOf(f *ssa.Function) *ssa.Package {
	if f.Pkg == nil && f.Origin() != nil {
		return f.Origin().Pkg
	}
	return f.Pkg
}

// built is the function whose body runs for f: its generic origin for an
// instantiation that has no body of its own.
func built(f *ssa.Function) *ssa.Function {
	if f.Blocks == nil && f.Origin() != nil {
		return f.Origin()
	}
	return f
}

// origin is f's generic origin, or f.
func origin(f *ssa.Function) *ssa.Function {
	if f.Origin() != nil {
		return f.Origin()
	}
	return f
}

// paramType is the type of the parameter argument i of cc binds.
func paramType(cc *ssa.CallCommon, i int) types.Type {
	if f := cc.StaticCallee(); f != nil {
		if i < len(f.Params) {
			return f.Params[i].Type()
		}
		return nil
	}
	ps := cc.Signature().Params()
	if i < ps.Len() {
		return ps.At(i).Type()
	}
	return nil
}

// opaque reports whether a parameter of type t takes anything (any, ...any):
// an item handed to it is logged, formatted or encoded, not handled.
func opaque(t types.Type) bool {
	if t == nil {
		return true
	}
	if s, ok := t.Underlying().(*types.Slice); ok {
		t = s.Elem()
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false // a generic queue's T: its items
	}
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.NumMethods() == 0
}

// scalar reports whether t is a number, a string or a bool: a name or an
// id handed to a worker (a server to refresh, a row to revisit), not a
// stored item.
func scalar(t types.Type) bool {
	_, ok := t.Underlying().(*types.Basic)
	return ok
}

// queueTo marks f a queue handler, handed item by the call ci: acked as
// itemsAck says, unless its dispatcher said otherwise already.
func (a *pkgAnalysis) queueTo(f *ssa.Function, ci ssa.CallInstruction, item ssa.Value) {
	a.queued[f] = true
	if ra, ok := itemsAck(ci, item); ok {
		if _, set := a.resultAck[f]; !set {
			a.resultAck[f] = ra
		}
	}
}

// listPops are the Redis commands that take the next job off a list.
var listPops = []string{"BRPop", "BLPop", "RPop", "LPop", "BRPopLPush", "BLMove", "BLMPop", "LMPop"}

// listPushes are the Redis commands that add a job to a list.
var listPushes = []string{"LPush", "RPush", "LPushX", "RPushX"}

// findListQueues marks the packages of the program that pop jobs off
// Redis lists and also push onto them in functions that do not pop: a
// queue layer over lists (a Producer's LPUSH beside a Consumer's
// BRPOPLPUSH), whose producer hands a job to a worker, as a broker's
// producer does, rather than change data. A worker that pops a job and
// pushes it back after a failure is no such producer.
func (a *pkgAnalysis) findListQueues() {
	pops, pushes := map[*ssa.Package]bool{}, map[*ssa.Package]bool{}
	for _, fn := range a.funcs {
		push := false
		for ci := range callsIn(fn) {
			f := callee(ci.Common())
			if f == nil || !a.clientPkg(f) {
				continue
			}
			switch {
			case slices.Contains(listPops, f.Name()) && a.cat.Has(f, knowledge.Fetch):
				pops[fn.Pkg] = true
				a.listPoppers[fn] = true
			case slices.Contains(listPushes, f.Name()):
				push = true
			}
		}
		if push {
			pushes[fn.Pkg] = true
		}
	}
	for p := range pops {
		if pushes[p] {
			a.listQueuePkgs[p] = true
		}
	}
}

// listPush reports whether a Redis rule's call pushes a job onto a list
// of the program's own list queue, from a function that pops none
// (findListQueues).
func (a *pkgAnalysis) listPush(s *summary, cc *ssa.CallCommon, r bound) bool {
	f := callee(cc)
	return r.Kind == knowledge.Redis && f != nil && slices.Contains(listPushes, f.Name()) &&
		a.listQueuePkgs[pkgOf(s.fn)] && !a.listPoppers[s.fn]
}
