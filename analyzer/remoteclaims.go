package analyzer

import (
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A service may take a job through another service's claim: a remote call
// named as a claim whose reply says whether this worker got the job,
//
//	claim, err := r.svc.Jobs.ClaimJob(ctx, &jobspb.ClaimJobRequest{Id: job.ID, …})
//	…
//	if !claim.GetClaimed() {
//		return nil // another worker has it, or had it
//	}
//
// The call is a dedup check, not an effect, when that bool decides a
// branch; the reply's Claimed field or getter is its fresh side.

// claimVerbs start the names of such calls.
var claimVerbs = []string{"Claim", "TryClaim"}

// claimedNames are the reply's field and getters telling the claim was
// taken.
var claimedNames = []string{"Claimed", "GetClaimed", "IsClaimed"}

// remoteClaims turns the effects of calls named as claims whose reply's
// Claimed decides into checks (see above).
func (a *pkgAnalysis) remoteClaims(s *summary) {
	for _, o := range s.occs {
		call, ok := o.instr.(*ssa.Call)
		if !ok || o.fromCheck != nil || !claimName(calledName(call.Common())) {
			continue
		}
		reply := result(call, 0)
		if reply == nil {
			continue
		}
		var bools []ssa.Value
		for _, v := range replyValues(reply) {
			for _, n := range claimedNames {
				bools = append(bools, fieldLoads(v, n)...)
			}
			for _, r := range *v.Referrers() {
				if c, ok := r.(*ssa.Call); ok && len(c.Call.Args) > 0 && c.Call.Args[0] == v && isBool(c.Type()) {
					if f := callee(c.Common()); f != nil && slices.Contains(claimedNames, f.Name()) {
						bools = append(bools, c)
					}
				}
			}
		}
		if len(bools) == 0 {
			continue
		}
		c := &check{call: call, pos: call.Pos(), desc: o.desc, kind: ckFunc, recv: o.recv}
		for _, b := range bools {
			s.values[b] = &dval{chk: c, kind: vBool, t: implFresh, f: implDup}
		}
		o.fromCheck = c
		s.checks = append(s.checks, c)
	}
}

// calledName returns the name of the function or interface method a call
// calls, "" for a func value.
func calledName(cc *ssa.CallCommon) string {
	if cc.IsInvoke() {
		return cc.Method.Name()
	}
	if f := callee(cc); f != nil {
		return f.Name()
	}
	return ""
}

// claimName reports whether a function's name says it claims (ClaimJob,
// TryClaimTask): a claim verb followed by the end or an upper-case letter.
func claimName(name string) bool {
	for _, v := range claimVerbs {
		if rest, ok := strings.CutPrefix(name, v); ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return true
		}
	}
	return false
}

// replyValues returns the reply and, when it is kept in a variable a
// closure captures (set once), the loads of that variable.
func replyValues(reply ssa.Value) []ssa.Value {
	out := []ssa.Value{reply}
	for _, r := range *reply.Referrers() {
		st, ok := r.(*ssa.Store)
		if !ok || st.Val != reply {
			continue
		}
		al, ok := st.Addr.(*ssa.Alloc)
		if !ok || onlyStore(al) != reply {
			continue
		}
		for _, ar := range *al.Referrers() {
			if ld, ok := ar.(*ssa.UnOp); ok && ld.Op == token.MUL && runsBefore(st, ld) {
				out = append(out, ld)
			}
		}
	}
	return out
}
