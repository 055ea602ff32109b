package analyzer

import (
	"go/types"
	"sort"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Interfaces of the program implemented by a client library. A service
// often hides its ORM or client behind an interface of its own (an Engine
// with Insert, a Cache with Incr) that no type of the program implements:
// the values are the client's (*xorm.Engine, *xorm.Session). In a whole
// program, a call through such an interface is what the client's method
// does, for the client types the program converts to an interface.

// clientTypes returns the concrete types of catalogued clients and of
// remote-service SDKs that the program's functions convert to an
// interface, in a stable order.
func (a *pkgAnalysis) clientTypes() []types.Type {
	seen := map[string]bool{}
	var out []types.Type
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				mi, ok := instr.(*ssa.MakeInterface)
				if !ok {
					continue
				}
				t := mi.X.Type()
				n, ok := types.Unalias(derefType(t)).(*types.Named)
				if !ok || !a.clientType(n) && !a.embedsClient(n) {
					continue
				}
				if k := types.TypeString(t, nil); !seen[k] {
					seen[k] = true
					out = append(out, t)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return types.TypeString(out[i], nil) < types.TypeString(out[j], nil) })
	return out
}

// callRules returns the catalog's rules of ci's callee; for a call through
// the program's own interface over a client (a KafkaConsumerService the
// program fills with a *kafka.Consumer, for mocks), the client method's.
func (a *pkgAnalysis) callRules(ci ssa.CallInstruction) []bound {
	f := callee(ci.Common())
	rules := a.rulesOf(f)
	if len(rules) == 0 && ci.Common().IsInvoke() && a.clients != nil {
		_, rules = a.clientImpl(f)
	}
	return rules
}

// callHas reports whether ci's callee (see callRules) has a rule of role r.
func (a *pkgAnalysis) callHas(ci ssa.CallInstruction, r knowledge.Role) bool {
	for _, b := range a.callRules(ci) {
		if b.Role == r {
			return true
		}
	}
	return false
}

// clientImpl returns the catalogued method that implements interface
// method m for one of the client types the program converts to an
// interface, with its rules; nil when none has rules.
func (a *pkgAnalysis) clientImpl(m *types.Func) (*types.Func, []bound) {
	impl := a.clientMethod(m, func(f *types.Func) bool { return len(a.rulesOf(f)) > 0 })
	if impl == nil {
		return nil, nil
	}
	return impl, a.rulesOf(impl)
}

// clientMethod returns the first method, of the client types the program
// converts to an interface, that implements interface method m and that
// keep accepts; nil when none does.
func (a *pkgAnalysis) clientMethod(m *types.Func, keep func(*types.Func) bool) *types.Func {
	sig, _ := m.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	for _, t := range a.clients {
		if impl := implementation(t, iface, m); impl != nil && keep(impl) {
			return impl
		}
	}
	return nil
}

// clientType reports whether n is a type of a catalogued client or of a
// remote-service SDK.
func (a *pkgAnalysis) clientType(n *types.Named) bool {
	p := n.Obj().Pkg()
	return p != nil && (a.cat.Known(knowledge.NormPath(p.Path())) || a.cat.Described(p.Path()))
}

// embedsClient reports whether n is a struct of the program that embeds a
// client type (type senderImpl struct{ *ses.SES }): its promoted methods
// are the client's.
func (a *pkgAnalysis) embedsClient(n *types.Named) bool {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range st.Fields() {
		if e, ok := types.Unalias(derefType(f.Type())).(*types.Named); ok && f.Embedded() && e.Obj().Pkg() != nil && a.clientType(e) {
			return true
		}
	}
	return false
}

// sdkImpl returns the method of a remote-service SDK's client (see
// rpcStub) that implements interface method m for one of the client types
// the program converts to an interface, when the catalog has no rule for
// it (SQS's SendMessage publishes); nil when none does.
func (a *pkgAnalysis) sdkImpl(m *types.Func) *types.Func {
	return a.clientMethod(m, func(f *types.Func) bool { return len(a.rulesOf(f)) == 0 && a.rpcStub(f) })
}

// implementation returns t's method that implements m of iface; nil when t
// does not implement iface.
func implementation(t types.Type, iface *types.Interface, m *types.Func) *types.Func {
	if !types.Implements(t, iface) {
		return nil
	}
	sel := types.NewMethodSet(t).Lookup(m.Pkg(), m.Name())
	if sel == nil {
		return nil
	}
	impl, _ := sel.Obj().(*types.Func)
	return impl
}
