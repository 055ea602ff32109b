package analyzer

import (
	"go/token"
	"net/textproto"
	"slices"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// HTTP calls: the method a request is made with and the Idempotency-Key
// header it carries, from constants or from the caller's arguments.

// resolveKey decides an HTTP effect whose Idempotency-Key comes from a
// parameter (or is sent only when it is not empty) from the argument the
// caller passes: "" or a value new on every call (a random id) keeps the
// effect, the caller's own parameter defers to its callers, any other value
// is a key (false: not an effect).
func (a *pkgAnalysis) resolveKey(o *occ, ci ssa.CallInstruction, args []ssa.Value) bool {
	if p := o.innerFact.RequestParam; p >= 0 {
		keyed, keyParam, reqParam := a.requestKey(ci.Parent(), arg(args, p))
		if keyed {
			return false
		}
		o.innerFact.RequestParam = reqParam
		o.innerFact.HeaderParam = keyParam
		return true
	}
	p := o.innerFact.HeaderParam
	if p < 0 {
		return true
	}
	o.innerFact.HeaderParam = -1
	v := arg(args, p)
	if v == nil {
		return true
	}
	if s, ok := constString(v); ok {
		return s == ""
	}
	if fresh, _ := a.keyIndependent(v); fresh {
		return true // a new key on every delivery
	}
	if x, ok := peel(v).(*ssa.Parameter); ok {
		o.innerFact.HeaderParam = paramIndex(ci.Parent(), x)
		return true
	}
	return false
}

// resolveMethod decides o, an HTTP call whose method its function's caller
// names, at the call ci: a constant PUT, DELETE … is no effect (false); a
// parameter of the caller passes the decision on.
func resolveMethod(o *occ, ci ssa.CallInstruction, args []ssa.Value) bool {
	p := o.innerFact.MethodParam
	if p < 0 {
		return true
	}
	v := arg(args, p)
	if m, ok := constString(v); ok {
		if m = strings.ToUpper(m); m != "POST" {
			return false
		}
		o.desc += " " + m
		o.innerFact.MethodParam = -1
		return true
	}
	o.innerFact.MethodParam = paramIndex(ci.Parent(), v)
	return true
}

// methodParam returns the parameter of fn that the method of req, an HTTP
// request built by a catalogued constructor, comes from; -1 when none.
func (a *pkgAnalysis) methodParam(fn *ssa.Function, req ssa.Value) int {
	v := peel(req)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return -1
	}
	r, ok := a.find(callee(call.Common()), knowledge.NewRequest)
	if !ok {
		return -1
	}
	_, args := splitArgs(call.Common())
	m := arg(args, r.arg)
	if _, ok := peel(m).(*ssa.Parameter); !ok {
		return -1
	}
	return paramIndex(fn, m)
}

// requestCalls returns the calls of the catalog's request constructors
// (http.NewRequest(WithContext)) req was built by, with their rules: one,
// or one per branch a request made on either branch comes from (nil edges
// skipped). nil when some path is no such call.
func (a *pkgAnalysis) requestCalls(req ssa.Value) ([]*ssa.Call, []bound) {
	v := peel(req)
	if phi, ok := v.(*ssa.Phi); ok {
		var calls []*ssa.Call
		var rules []bound
		for _, e := range phi.Edges {
			if isNilConst(e) {
				continue
			}
			if _, ok := peel(e).(*ssa.Phi); ok {
				return nil, nil
			}
			cs, rs := a.requestCalls(e)
			if cs == nil {
				return nil, nil
			}
			calls, rules = append(calls, cs...), append(rules, rs...)
		}
		return calls, rules
	}
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil, nil
	}
	r, ok := a.find(callee(call.Common()), knowledge.NewRequest)
	if !ok {
		return nil, nil
	}
	return []*ssa.Call{call}, []bound{r}
}

// httpMethod returns the method of a request built by a request
// constructor of the catalog: the constant every constructor call it comes
// from gives.
func (a *pkgAnalysis) httpMethod(req ssa.Value) (string, bool) {
	calls, rules := a.requestCalls(req)
	method := ""
	for i, call := range calls {
		_, args := splitArgs(call.Common())
		m, ok := constString(arg(args, rules[i].arg))
		if !ok || i > 0 && strings.ToUpper(m) != method {
			return "", false
		}
		method = strings.ToUpper(m)
	}
	return method, len(calls) > 0
}

// computeRequest reports whether req, a request built by a request
// constructor of the catalog, goes to a model inference endpoint (see
// knowledge.Catalog.ComputeURL): on every branch it comes from, a constant
// part of its URL ends in one.
func (a *pkgAnalysis) computeRequest(req ssa.Value) bool {
	calls, rules := a.requestCalls(req)
	for i, call := range calls {
		_, args := splitArgs(call.Common())
		if !slices.ContainsFunc(reachedStrings(arg(args, rules[i].arg+1)), a.cat.ComputeURL) { // the URL follows the method
			return false
		}
	}
	return len(calls) > 0
}

// idempotencyKey reports whether the request sent at ci carries an
// Idempotency-Key header (the provider then drops a repeat): set on every
// path to the call, or only when a parameter of the function is not empty
// (`if key != "" { req.Header.Set("Idempotency-Key", key) }`), in which case
// param is that parameter and callers decide. A header set under any other
// condition does not count.
func (a *pkgAnalysis) idempotencyKey(ci ssa.CallInstruction) (keyed bool, param int) {
	fn := ci.Parent()
	param = -1
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			var key, val ssa.Value
			switch in := instr.(type) {
			case *ssa.Call:
				f := callee(in.Common())
				if r, ok := a.find(f, knowledge.HeaderSet); ok {
					_, hargs := splitArgs(in.Common())
					key, val = arg(hargs, r.arg), arg(hargs, r.key)
				}
			case *ssa.MapUpdate:
				if a.cat.TypeRole(in.Map.Type()) == knowledge.HeaderType {
					key, val = in.Key, in.Value
				}
			}
			k, ok := constString(key)
			if !ok {
				continue
			}
			k = textproto.CanonicalMIMEHeaderKey(k)
			if !a.cat.KeyHeader(k) {
				continue
			}
			if fresh, _ := a.keyIndependent(val); fresh {
				continue // a new key per attempt: the provider sees every repeat as new
			}
			if b.Dominates(ci.Block()) {
				if p, ok := peel(val).(*ssa.Parameter); ok {
					return false, paramIndex(fn, p) // the caller's key decides
				}
				return true, -1
			}
			if p := nonEmptyParam(fn, b); p >= 0 {
				param = p
			}
		}
	}
	return false, param
}

// nonEmptyParam returns the parameter whose test `p != ""` (or `len(p) > 0`)
// guards block b: b is dominated by the true side of that test; -1 if none.
func nonEmptyParam(fn *ssa.Function, b *ssa.BasicBlock) int {
	for d := b.Idom(); d != nil; d = d.Idom() {
		ifi, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok || !d.Succs[0].Dominates(b) {
			continue
		}
		bin, ok := ifi.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		x, y := bin.X, bin.Y
		if _, ok := x.(*ssa.Const); ok {
			x, y = y, x
		}
		var v ssa.Value
		switch {
		case bin.Op == token.NEQ:
			if s, ok := constString(y); ok && s == "" {
				v = x
			}
		case bin.Op == token.GTR:
			if n, ok := constInt(y); ok && n == 0 {
				if c, ok := x.(*ssa.Call); ok {
					if bi, ok := c.Call.Value.(*ssa.Builtin); ok && bi.Name() == "len" && len(c.Call.Args) == 1 {
						v = c.Call.Args[0]
					}
				}
			}
		}
		if p, ok := v.(*ssa.Parameter); ok {
			return paramIndex(fn, p)
		}
	}
	return -1
}
