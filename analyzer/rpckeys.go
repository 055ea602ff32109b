package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Idempotency keys of remote calls: a request that carries a key the
// service checks (a gRPC request's IdempotencyKey field: catalog
// KeyFields) is dropped by the service when it is sent again, so the call
// is no effect, as an HTTP request with an Idempotency-Key header is not:
//
//	key := fmt.Sprintf("billing-%s", r.ID)
//	c.billing.StartBilling(ctx, &billingv1.StartBillingRequest{ReservationId: r.ID, IdempotencyKey: key})
//
// The key must be able to repeat: a constant "" or a value new on every
// call (a random id, the clock) keys nothing. A request that is a
// parameter, or a key that is one, is decided by the caller's argument.

// requestKey reports whether req, the request of a remote call made in fn,
// carries an idempotency key (keyed); otherwise keyParam is the parameter
// of fn the key is taken from, when it is one, and reqParam the parameter
// req is, when it is one (-1 for each otherwise).
func (a *pkgAnalysis) requestKey(fn *ssa.Function, req ssa.Value) (keyed bool, keyParam, reqParam int) {
	keyParam, reqParam = -1, -1
	if req == nil {
		return false, -1, -1
	}
	if p, ok := peel(req).(*ssa.Parameter); ok {
		return false, -1, paramIndex(fn, p)
	}
	st, ok := types.Unalias(derefType(peel(req).Type())).Underlying().(*types.Struct)
	if !ok {
		return false, -1, -1
	}
	for i := range st.NumFields() {
		if !a.cat.KeyField(st.Field(i).Name()) {
			continue
		}
		vals, _ := storedField(req, st.Field(i).Name())
		for _, v := range vals {
			if s, ok := constString(v); ok {
				if s != "" {
					return true, -1, -1 // one key for every message: still a key
				}
				continue
			}
			if fresh, _ := a.keyIndependent(v); fresh {
				continue // a new key per call: every repeat is new to the service
			}
			if p, ok := peel(v).(*ssa.Parameter); ok {
				keyParam = paramIndex(fn, p)
				continue
			}
			return true, -1, -1
		}
	}
	return false, keyParam, -1
}

// addRemote records a remote call as an effect unless its request req
// carries an idempotency key (requestKey); a key or request that is a
// parameter leaves the decision to the callers.
func (a *pkgAnalysis) addRemote(s *summary, ci ssa.CallInstruction, desc string, recv, req ssa.Value) {
	keyed, keyParam, reqParam := a.requestKey(s.fn, req)
	if keyed {
		return
	}
	o := a.addEffect(s, ci, desc, knowledge.RPC, recv)
	o.innerFact.HeaderParam = keyParam
	o.innerFact.RequestParam = reqParam
}
