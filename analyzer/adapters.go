package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A message adapter of the program: a function given a client's message
// that returns the program's own type keeping it,
//
//	func NewDeliveryAdapter(d amqp.Delivery) Delivery {
//		return &DeliveryAdapter{d: d} // Ack, Nack, Body call d's
//	}
//
// so that the functions doing the work take the program's type (often an
// interface, to be faked in tests): processMessage(d Delivery, …). The
// type returned, and the interface of the program it is returned as, are
// messages of the client's: the function given one is a handler, judged on
// its own, and not only a step of the loop that adapts the message.

// adapterMessages returns the messages the program's adapters make
// (whole-program mode, with the wrappers, before any function is
// summarised).
func (a *pkgAnalysis) adapterMessages() []knowledge.Message {
	var out []knowledge.Message
	seen := map[string]bool{}
	add := func(t types.Type, m *knowledge.Message) {
		name := knowledge.QualifiedType(derefType(t))
		if name == "" || seen[name] || a.cat.Message(t) != nil {
			return
		}
		seen[name] = true
		out = append(out, knowledge.Message{Type: name, Client: m.Client, Offsets: m.Offsets, Learned: true})
	}
	adapted := map[types.Type]*knowledge.Message{} // adapter types
	for _, fn := range a.funcs {
		m := a.adaptedParam(fn)
		if m == nil {
			continue
		}
		res := fn.Signature.Results()
		if res.Len() != 1 {
			continue
		}
		for _, b := range fn.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok {
				continue
			}
			v := peel(returned(ret, 0))
			if a.holderMessage(v.Type()) == nil {
				continue
			}
			add(v.Type(), m)
			adapted[v.Type()] = m
			if it := res.At(0).Type(); types.IsInterface(it) && a.ownNamed(it) {
				add(it, m)
			}
		}
	}
	// The program's interfaces its functions take an adapter as, whose
	// methods ack through it (processMessage(d Delivery, …) given a
	// *DeliveryAdapter).
	for _, fn := range a.funcs {
		for _, p := range fn.Params {
			it := p.Type()
			if !types.IsInterface(it) || !a.ownNamed(it) {
				continue
			}
			for t, m := range adapted {
				if a.acksAs(t, it) {
					add(it, m)
				}
			}
		}
	}
	return out
}

// acksAs reports whether t implements the interface it with a method of it
// that acks or naks the client's message.
func (a *pkgAnalysis) acksAs(t, it types.Type) bool {
	iface, ok := it.Underlying().(*types.Interface)
	if !ok || !types.Implements(t, iface) {
		return false
	}
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		fn := a.prog.LookupMethod(t, m.Pkg(), m.Name())
		if fn == nil {
			continue
		}
		for ci := range callsIn(fn) {
			f := callee(ci.Common())
			if a.cat.Has(f, knowledge.Ack) || a.cat.Has(f, knowledge.Nack) {
				return true
			}
		}
	}
	return false
}

// adaptedParam returns the catalogued message type of fn's one parameter
// of such a type (a top-level function of the program, not a method), nil
// when it has none or several.
func (a *pkgAnalysis) adaptedParam(fn *ssa.Function) *knowledge.Message {
	if fn.Parent() != nil || fn.Signature.Recv() != nil || !a.local(fn.Pkg) {
		return nil
	}
	var found *knowledge.Message
	for _, p := range fn.Params {
		m := a.cat.Message(p.Type())
		if m == nil || m.Learned {
			continue
		}
		if found != nil {
			return nil
		}
		found = m
	}
	return found
}

// ownNamed reports whether t is a named type of one of the program's
// packages.
func (a *pkgAnalysis) ownNamed(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && a.ownPkgPath(n.Obj().Pkg().Path())
}
