package analyzer

import (
	"go/token"
	"slices"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Construction: how a client was made (a consumer that commits by itself
// is known by its config), traced through fields, closures, results and
// the callers' arguments.

// autoCommits reports whether the consumer a read is made on commits by
// itself, as ac describes: a kafka-go Reader with a GroupID (one it cannot
// trace counts as grouped, the usual case for consumers), a franz-go client
// made without DisableAutoCommit (or AutoCommitMarks), a confluent consumer
// whose config does not set enable.auto.commit. A consumer with options or
// config keys that cannot be traced to its constructor counts as committing
// explicitly. A consumer kept in a struct field is traced to the
// constructions stored in that field; it auto-commits when every one does.
func (a *pkgAnalysis) autoCommits(ac *knowledge.AutoCommit, recv ssa.Value) bool {
	if ac == nil {
		return false
	}
	if ac.Always {
		return true
	}
	calls := a.constructors(recv, ac.Ctor)
	if len(calls) == 0 {
		return constructionCommits(ac, nil)
	}
	for _, c := range calls {
		if !constructionCommits(ac, c) {
			return false
		}
	}
	return true
}

// constructionCommits reports whether the consumer made by call (nil: not
// traced) commits by itself.
func constructionCommits(ac *knowledge.AutoCommit, call *ssa.Call) bool {
	switch {
	case ac.GroupField != "":
		if call == nil || len(call.Call.Args) == 0 {
			return true
		}
		vals, found := storedField(call.Call.Args[0], ac.GroupField)
		if !found {
			return true
		}
		for _, x := range vals {
			if s, ok := constString(x); !ok || s != "" {
				return true
			}
		}
		return false
	case len(ac.ManualOptions)+len(ac.GroupOptions) > 0:
		if call == nil || len(call.Call.Args) == 0 {
			return false
		}
		group := len(ac.GroupOptions) == 0
		for _, f := range reachedCalls(arg(call.Call.Args, len(call.Call.Args)-1)) {
			if slices.Contains(ac.ManualOptions, f.Name()) {
				return false
			}
			if slices.Contains(ac.GroupOptions, f.Name()) {
				group = true
			}
		}
		return group
	case len(ac.ManualKeys) > 0:
		if call == nil || len(call.Call.Args) == 0 {
			return false
		}
		for _, str := range reachedStrings(call.Call.Args[0]) {
			if slices.Contains(ac.ManualKeys, str) {
				return false
			}
		}
		return true
	}
	return false
}

// constructors returns the calls to a function named name that made v: the
// call itself; for a client loaded from a struct field, the calls whose
// results the analysed code stores in that field; for a parameter, the
// calls made for it by the function's callers (New(log, db, kc) given
// kgo.NewClient's client in main). Nil when one of them cannot be traced.
func (a *pkgAnalysis) constructors(v ssa.Value, name string) []*ssa.Call {
	return a.constructorsDepth(v, name, 0)
}

func (a *pkgAnalysis) constructorsDepth(v ssa.Value, name string, depth int) []*ssa.Call {
	if c := constructor(v, name); c != nil {
		return []*ssa.Call{c}
	}
	if depth > 3 {
		return nil
	}
	var from []ssa.Value
	switch x := peel(v).(type) {
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return nil
		}
		if fv, ok := x.X.(*ssa.FreeVar); ok {
			from = storedTo(closureBindings(fv)) // a captured variable
			break
		}
		if al, ok := x.X.(*ssa.Alloc); ok {
			from = storedTo([]ssa.Value{al}) // a variable a closure captures
			break
		}
		fa, ok := x.X.(*ssa.FieldAddr)
		if !ok {
			return nil
		}
		from = a.fieldInits()[fieldKey(fa)]
	case *ssa.Parameter:
		from = a.argsFor(x)
	case *ssa.FreeVar:
		from = closureBindings(x) // a read loop a helper returns
	case *ssa.Extract:
		from = localResults(x.Tuple, x.Index) // c, err := newConsumer()
	case *ssa.Call:
		from = localResults(x, 0)
	}
	var out []*ssa.Call
	for _, x := range from {
		cs := a.constructorsDepth(x, name, depth+1)
		if len(cs) == 0 {
			return nil
		}
		out = append(out, cs...)
	}
	return out
}

// closureBindings returns the values bound to the free variable v where
// its closure is made in the enclosing function.
func closureBindings(v *ssa.FreeVar) []ssa.Value {
	fn := v.Parent()
	i := slices.Index(fn.FreeVars, v)
	if i < 0 || fn.Parent() == nil {
		return nil
	}
	var out []ssa.Value
	for _, b := range fn.Parent().Blocks {
		for _, in := range b.Instrs {
			if mc, ok := in.(*ssa.MakeClosure); ok && mc.Fn == fn && i < len(mc.Bindings) {
				out = append(out, mc.Bindings[i])
			}
		}
	}
	return out
}

// storedTo returns the values stored into the variables addrs (the Allocs
// a closure captures).
func storedTo(addrs []ssa.Value) []ssa.Value {
	var out []ssa.Value
	for _, v := range addrs {
		al, ok := v.(*ssa.Alloc)
		if !ok {
			return nil
		}
		for _, r := range *al.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == al {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// localResults returns the values a static call of a function with a body
// (a constructor helper of the program) returns as its result index, but
// the nils its error returns give.
func localResults(v ssa.Value, index int) []ssa.Value {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	f := call.Common().StaticCallee()
	if f == nil || f.Blocks == nil {
		return nil
	}
	var out []ssa.Value
	for _, b := range f.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && index < len(r.Results) && !isNilConst(returned(r, index)) {
			out = append(out, returned(r, index)) // not the nil of an error return
		}
	}
	return out
}

// argsFor returns the values the analysed code passes for parameter p at
// the static calls of its function (countUses' index).
func (a *pkgAnalysis) argsFor(p *ssa.Parameter) []ssa.Value {
	fn := p.Parent()
	i := slices.Index(fn.Params, p)
	u := a.uses[fn]
	if i < 0 || fn.Parent() != nil || u == nil {
		return nil
	}
	var out []ssa.Value
	for _, ci := range u.calls {
		if args := ci.Common().Args; i < len(args) {
			out = append(out, args[i])
		}
	}
	return out
}

// constructor returns the call to a function named name that made v.
func constructor(v ssa.Value, name string) *ssa.Call {
	v = peel(v)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	if fn := callee(call.Common()); fn != nil && fn.Name() == name {
		return call
	}
	return nil
}
