package analyzer

import (
	"go/token"
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A queue layer of the program that hands back what it fetched, parsed or
// decoded rather than a message of its own type:
//
//	func (q *RedisQueue) Dequeue(ctx context.Context) (int64, bool, error) {
//		res, err := q.client.BRPop(ctx, time.Second, q.key).Result()
//		…
//		id, err := strconv.ParseInt(res[1], 10, 64)
//		return id, true, err
//	}
//
//	func (s *RedisStore) DequeueWithContext(ctx context.Context, queue string, value interface{}) error {
//		… elem = res[1] …
//		return json.Unmarshal([]byte(elem), value)
//	}
//
// Each is a fetch to its caller, and so is a function that calls one and
// hands back what it returned (a service's PopQueue over the queue's
// Dequeue): the caller's loop over it is a consume loop. When the client's
// read acks by itself (a Redis pop removes the job from the list), so does
// the layer's.

// derivedWrappers returns the functions of the program that hand back what
// a fetch returned (see above), those that call them included, each with
// whether its read acks by itself. known are the fetch wrappers learnt
// already (with whether theirs does); they are not returned again. A
// function that returns a message the catalog knows is left to the
// message's own rules.
func (a *pkgAnalysis) derivedWrappers(known map[*ssa.Function]bool) map[*ssa.Function]derived {
	found := map[*ssa.Function]derived{}
	targets := func(ci ssa.CallInstruction) []*ssa.Function {
		if g := ci.Common().StaticCallee(); g != nil {
			return []*ssa.Function{g}
		}
		return a.callees[ci]
	}
	fetch := func(ci ssa.CallInstruction) (is, commits bool) {
		if a.callHas(ci, knowledge.Fetch) {
			return true, a.commitsOnRead([]ssa.CallInstruction{ci})
		}
		for _, g := range targets(ci) {
			if d, ok := found[g]; ok {
				return true, d.commits
			}
			if c, ok := known[g]; ok {
				return true, c
			}
		}
		return false, false
	}
	// The first pass reads every function of the program; a later one only
	// the callers of the wrappers the pass before found (a wrapper of a
	// wrapper), at most three deep.
	callers := map[*ssa.Function][]*ssa.Function{}
	todo := a.funcs
	for depth := 0; depth < 3 && len(todo) > 0; depth++ {
		var next []*ssa.Function
		for _, fn := range todo {
			if _, done := found[fn]; done || fn.Parent() != nil || fn.Blocks == nil || !a.local(fn.Pkg) {
				continue
			}
			if _, done := known[fn]; done || a.messageTyped(valueResult(fn)) {
				continue
			}
			fetched := map[ssa.Value]bool{}
			var d derived
			for ci := range callsIn(fn) {
				if depth == 0 {
					for _, g := range targets(ci) {
						if c := callers[g]; len(c) == 0 || c[len(c)-1] != fn {
							callers[g] = append(c, fn)
						}
					}
				}
				if is, c := fetch(ci); is {
					if call, ok := ci.(*ssa.Call); ok {
						fetched[call] = true
						d.commits = d.commits || c
						d.calls = append(d.calls, ci)
					}
				}
			}
			if len(d.calls) == 0 || !a.handsBack(fn, fetched) {
				continue
			}
			found[fn] = d
			next = append(next, callers[fn]...)
		}
		todo = next
	}
	return found
}

// derived is a wrapper derivedWrappers found: its fetches, and whether
// one of them acks by itself.
type derived struct {
	commits bool
	calls   []ssa.CallInstruction
}

// handsBack reports whether fn returns, as its first result that is not an
// error, a value built from one of the fetched calls' results, or decodes
// such a value into a pointer it was given.
func (a *pkgAnalysis) handsBack(fn *ssa.Function, fetched map[ssa.Value]bool) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch x := instr.(type) {
			case *ssa.Return:
				for _, v := range x.Results {
					if isError(v.Type()) {
						continue
					}
					if builtFrom(v, fetched, 0) {
						return true
					}
					break // the first result that is not an error
				}
			case *ssa.Call:
				if a.decodesInto(x, fetched) {
					return true
				}
			}
		}
	}
	return false
}

// decodesInto reports whether c decodes a value built from a fetched
// result into a parameter of its function (json.Unmarshal(b, value)): c
// calls a decoder of the catalog, or a function named as one.
func (a *pkgAnalysis) decodesInto(c *ssa.Call, fetched map[ssa.Value]bool) bool {
	g := c.Call.StaticCallee()
	if g == nil || !a.cat.Has(callee(c.Common()), knowledge.Decode) && !decodingName(g.Name()) {
		return false
	}
	into, from := false, false
	for _, v := range c.Call.Args {
		if _, ok := peel(v).(*ssa.Parameter); ok {
			into = true
		} else if builtFrom(v, fetched, 0) {
			from = true
		}
	}
	return into && from
}

// builtFrom reports whether v is a fetched result, or built from one by
// taking its parts, converting or parsing it, through the function's
// locals.
func builtFrom(v ssa.Value, fetched map[ssa.Value]bool, depth int) bool {
	if v == nil || depth > 10 {
		return false
	}
	if fetched[v] {
		return true
	}
	if x, ok := partOf(v); ok {
		return builtFrom(x, fetched, depth+1)
	}
	switch x := v.(type) {
	case *ssa.Extract:
		return builtFrom(x.Tuple, fetched, depth+1)
	case *ssa.Phi:
		for _, e := range x.Edges {
			if builtFrom(e, fetched, depth+1) {
				return true
			}
		}
	case *ssa.Call:
		// A reply's value (BRPop(…).Result()), a parse (strconv.ParseInt):
		// a static call given the fetched value. Not len or cap.
		if _, builtin := x.Call.Value.(*ssa.Builtin); builtin || x.Call.IsInvoke() {
			return false
		}
		for _, arg := range x.Call.Args {
			if builtFrom(arg, fetched, depth+1) {
				return true
			}
		}
	case *ssa.Alloc:
		return storedFrom(x, func(v ssa.Value) bool { return builtFrom(v, fetched, depth+1) })
	}
	return false
}

// partOf returns the value v takes a part of (a field, an element, a
// slice, what a pointer points to) or converts, and whether it does.
func partOf(v ssa.Value) (ssa.Value, bool) {
	switch x := v.(type) {
	case *ssa.Field:
		return x.X, true
	case *ssa.FieldAddr:
		return x.X, true
	case *ssa.Index:
		return x.X, true
	case *ssa.IndexAddr:
		return x.X, true
	case *ssa.Slice:
		return x.X, true
	case *ssa.UnOp:
		return x.X, x.Op == token.MUL
	case *ssa.Convert:
		return x.X, true
	case *ssa.ChangeType:
		return x.X, true
	case *ssa.MakeInterface:
		return x.X, true
	}
	return nil, false
}

// storedFrom reports whether a value stored into the local al (a range
// variable, a variable assigned in branches) satisfies from.
func storedFrom(al *ssa.Alloc, from func(ssa.Value) bool) bool {
	for _, r := range *al.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == al && from(st.Val) {
			return true
		}
	}
	return false
}

// messageTyped reports whether t is, or is a slice of or a pointer to, a
// message the catalog knows or a result that holds them.
func (a *pkgAnalysis) messageTyped(t types.Type) bool {
	if t == nil {
		return false
	}
	if sl, ok := types.Unalias(t).(*types.Slice); ok {
		t = sl.Elem()
	}
	return a.cat.Message(t) != nil || a.cat.Message(derefType(t)) != nil || a.heldMessage(t) != nil
}
