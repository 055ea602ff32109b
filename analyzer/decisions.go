package analyzer

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Decisions: what a branch condition says of a dedup check (fresh,
// duplicate, or neither) and which side of it a block is on.

// isLock reports whether the key of a SET NX is deleted on its success path
// (deferred, or in a block the fresh side reaches that is not an error
// branch): then the SET NX is a mutex around the effect, not a dedup record.
func (a *pkgAnalysis) isLock(s *summary, c *check) bool {
	for _, del := range s.dels {
		_, args := splitArgs(del.Common())
		same := false
		for _, k := range args[min(1, len(args)):] {
			if sameKey(k, c.key) {
				same = true
			}
		}
		if !same {
			continue
		}
		if _, ok := del.(*ssa.Defer); ok {
			return true
		}
		onFailure := false
		for _, d := range s.failures {
			if d.fresh.Dominates(del.Block()) {
				onFailure = true
			}
		}
		if !onFailure {
			return true
		}
	}
	return false
}

// releasedLock reports whether c, a call of a function that decides by its
// result (a dedup function), returns a value that the caller then hands to
// a function deleting a Redis key (defer lock.Release(ctx)): the function
// takes a lock (a SET NX of its own), not a dedup record.
func (a *pkgAnalysis) releasedLock(c *check) bool {
	call, ok := c.call.(*ssa.Call)
	if !ok {
		return false
	}
	var vals []ssa.Value
	if _, tuple := call.Type().(*types.Tuple); !tuple {
		vals = append(vals, call)
	}
	for _, r := range *call.Referrers() {
		if x, ok := r.(*ssa.Extract); ok && !isError(x.Type()) {
			vals = append(vals, x)
		}
	}
	for _, v := range vals {
		for _, r := range *v.Referrers() {
			ci, ok := r.(ssa.CallInstruction)
			if !ok {
				continue
			}
			fns := a.callees[ci]
			if f := ci.Common().StaticCallee(); f != nil {
				fns = []*ssa.Function{f}
			}
			for _, f := range fns {
				if f.Blocks != nil && a.local(f.Pkg) && len(a.summary(f).dels) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// sameKey reports whether two key values are the same value, or computed
// the same way from the same values and constants ("lock:"+o.User twice).
func sameKey(x, y ssa.Value) bool { return sameExpr(x, y, 0) }

func sameExpr(x, y ssa.Value, depth int) bool {
	if x == nil || y == nil || depth > 6 {
		return false
	}
	x, y = peelVariadic(peel(x)), peelVariadic(peel(y))
	if x == y {
		return true
	}
	if sx, ok := constString(x); ok {
		sy, ok := constString(y)
		return ok && sx == sy
	}
	switch a := x.(type) {
	case *ssa.BinOp:
		b, ok := y.(*ssa.BinOp)
		return ok && a.Op == b.Op && sameExpr(a.X, b.X, depth+1) && sameExpr(a.Y, b.Y, depth+1)
	case *ssa.UnOp:
		b, ok := y.(*ssa.UnOp)
		return ok && a.Op == b.Op && sameExpr(a.X, b.X, depth+1)
	case *ssa.FieldAddr:
		b, ok := y.(*ssa.FieldAddr)
		return ok && a.Field == b.Field && sameExpr(a.X, b.X, depth+1)
	case *ssa.Field:
		b, ok := y.(*ssa.Field)
		return ok && a.Field == b.Field && sameExpr(a.X, b.X, depth+1)
	case *ssa.Call:
		b, ok := y.(*ssa.Call)
		if !ok || len(a.Call.Args) != len(b.Call.Args) || callee(a.Common()) == nil || callee(a.Common()) != callee(b.Common()) {
			return false
		}
		for i := range a.Call.Args {
			if !sameExpr(a.Call.Args[i], b.Call.Args[i], depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// cond evaluates an If condition: which check it decides on, and what its
// true and false sides imply (fresh, duplicate, or nothing). It follows
// negations, comparisons with constants and sentinel errors, errors.Is, and
// phis of those (a && b), as gopls's yield analyzer follows booleans.
func (s *summary) cond(v ssa.Value, depth int) (*check, impl, impl) {
	if depth > 6 {
		return nil, implNone, implNone
	}
	if d := s.values[v]; d != nil && d.kind == vBool {
		return d.chk, d.t, d.f
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			c, t, f := s.cond(x.X, depth+1)
			return c, f, t
		}
	case *ssa.BinOp:
		return s.compare(x)
	case *ssa.Call:
		fn := callee(x.Common())
		if notFoundTest(fn) && len(x.Call.Args) == 1 {
			if d := s.values[x.Call.Args[0]]; d != nil && d.kind == vErr && d.sentinel == knowledge.NoRows {
				return d.chk, d.s, implNone
			}
		}
		if fn != nil && fn.FullName() == "errors.Is" && len(x.Call.Args) == 2 {
			if d := s.values[x.Call.Args[0]]; d != nil && d.kind == vErr {
				if sentinelMatches(s.cat, globalName(x.Call.Args[1]), d.sentinel) {
					return d.chk, d.s, implNone
				}
			}
		}
	case *ssa.Phi:
		var c *check
		t, f := implNone, implNone
		tset, fset := false, false
		meet := func(cur *impl, set *bool, v impl) {
			if !*set {
				*cur, *set = v, true
			} else if *cur != v {
				*cur = implNone
			}
		}
		for _, e := range x.Edges {
			if b, ok := constBool(e); ok {
				if b {
					meet(&t, &tset, implNone)
				} else {
					meet(&f, &fset, implNone)
				}
				continue
			}
			ec, et, ef := s.cond(e, depth+1)
			if ec == nil || (c != nil && ec != c) {
				return nil, implNone, implNone
			}
			c = ec
			meet(&t, &tset, et)
			meet(&f, &fset, ef)
		}
		if c != nil {
			return c, t, f
		}
	}
	return nil, implNone, implNone
}

// notFoundTest reports whether fn is a predicate telling a not-found error,
// as ent generates one (ent.IsNotFound(err)): a function named IsNotFound
// of one error returning a bool.
func notFoundTest(fn *types.Func) bool {
	if fn == nil || fn.Name() != "IsNotFound" {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 1 && isError(sig.Params().At(0).Type()) && sig.Results().Len() == 1 && isBool(sig.Results().At(0).Type())
}

// sentinelMatches reports whether the sentinel error name (qualified)
// belongs to class (knowledge.NoRows, knowledge.DupKey): by the catalog, or
// for unique violations by its name (ErrDuplicate, ErrAlreadyExists …).
func sentinelMatches(cat *knowledge.Catalog, name, class string) bool {
	if name == "" {
		return false
	}
	if c := cat.Sentinel(name); c != "" {
		return c == class
	}
	if class == knowledge.DupKey {
		n := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
		return strings.Contains(n, "dup") || strings.Contains(n, "unique") || strings.Contains(n, "exist") || strings.Contains(n, "conflict")
	}
	return false
}

// compare evaluates a comparison of a decision value with a constant.
func (s *summary) compare(b *ssa.BinOp) (*check, impl, impl) {
	x, y, op := b.X, b.Y, b.Op
	if s.values[x] == nil && s.values[y] != nil {
		x, y = y, x
		switch op {
		case token.LSS:
			op = token.GTR
		case token.GTR:
			op = token.LSS
		case token.LEQ:
			op = token.GEQ
		case token.GEQ:
			op = token.LEQ
		}
	}
	d := s.values[x]
	if d == nil {
		return nil, implNone, implNone
	}
	swap := func(c *check, t, f impl) (*check, impl, impl) { return c, f, t }
	switch d.kind {
	case vBool:
		bv, ok := constBool(y)
		if !ok {
			break
		}
		t, f := d.t, d.f
		if !bv {
			t, f = f, t
		}
		if op == token.NEQ {
			t, f = f, t
		}
		return d.chk, t, f
	case vInt:
		k, ok := constInt(y)
		if !ok {
			break
		}
		pos, zero := d.t, d.f
		switch {
		case op == token.EQL && k == 0, op == token.LSS && k == 1, op == token.LEQ && k == 0:
			return d.chk, zero, pos
		case op == token.NEQ && k == 0, op == token.GTR && k == 0, op == token.GEQ && k == 1:
			return d.chk, pos, zero
		case op == token.EQL && k >= 1 && d.found:
			return d.chk, pos, zero // SELECT 1 …: result == 1 when found
		case op == token.NEQ && k >= 1 && d.found:
			return d.chk, zero, pos
		case op == token.EQL && k >= 1:
			return d.chk, pos, implNone
		case op == token.NEQ && k >= 1:
			return d.chk, implNone, pos
		}
	case vErr:
		var t, f impl
		switch {
		case isNilConst(y):
			t, f = d.t, d.f
		case sentinelMatches(s.cat, globalName(y), d.sentinel):
			t, f = d.s, implNone
		default:
			return nil, implNone, implNone
		}
		if op == token.NEQ {
			return swap(d.chk, t, f)
		}
		if op == token.EQL {
			return d.chk, t, f
		}
	case vOutcome:
		k, ok := constInt(y)
		if !ok || (op != token.EQL && op != token.NEQ) {
			break
		}
		t, f := implFresh, implDup // Applied (1)
		if k == 2 {
			t, f = implDup, implFresh
		}
		if op == token.NEQ {
			t, f = f, t
		}
		return d.chk, t, f
	}
	return nil, implNone, implNone
}

// sideOf returns what the decisions dominating b imply.
func (s *summary) sideOf(b *ssa.BasicBlock) impl {
	res := implNone
	for _, d := range s.decisions {
		for i, succ := range d.blk.Succs {
			if d.succ[i] == implNone || !succ.Dominates(b) {
				continue
			}
			if i == 0 && d.blk.Succs[1] == succ || i == 1 && d.blk.Succs[0] == succ {
				continue
			}
			if s.reaches(d.blk.Succs[1-i], b, d.blk) {
				continue
			}
			if res != implNone && res != d.succ[i] {
				return implNone
			}
			res = d.succ[i]
		}
	}
	return res
}
