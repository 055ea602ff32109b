package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Row scanners: a function of the program that takes a row and scans it
// into a struct it returns,
//
//	func scanOrder(row rowScanner) (*Order, error) {
//		var o Order
//		err := row.Scan(&o.ID, &o.Status)
//		…
//		return &o, nil
//	}
//
// called with a lookup's row (return scanOrder(r.db.QueryRow(ctx, q, id))).
// What it returns is the row's values, as a struct scanned in the caller
// would be: its fields carry the lookup's state.

// scannedRows returns, for a lookup's row res, the results of calls of row
// scanners given it (directly or converted to the program's interface).
func (a *pkgAnalysis) scannedRows(res ssa.Value) []ssa.Value {
	var out []ssa.Value
	var visit func(v ssa.Value, depth int)
	visit = func(v ssa.Value, depth int) {
		refs := v.Referrers()
		if refs == nil || depth > 1 {
			return
		}
		for _, r := range *refs {
			switch x := r.(type) {
			case *ssa.ChangeInterface:
				visit(x, depth+1)
			case *ssa.ChangeType:
				visit(x, depth+1)
			case *ssa.MakeInterface:
				visit(x, depth+1)
			case *ssa.Call:
				f := x.Call.StaticCallee()
				if f == nil || f.Blocks == nil || !a.local(pkgOf(f)) {
					continue
				}
				for i, arg := range x.Call.Args {
					if arg != v {
						continue
					}
					if ri := rowScanner(f, i); ri >= 0 {
						if row := result(x, ri); row != nil {
							out = append(out, row)
						}
					}
				}
			}
		}
	}
	visit(res, 0)
	return out
}

// rowScanner returns the result of f that holds the struct f scans its
// parameter p into (p.Scan(&o.ID, …), then return &o or o); -1 when f is
// no row scanner of p.
func rowScanner(f *ssa.Function, p int) int {
	if p >= len(f.Params) {
		return -1
	}
	param := f.Params[p]
	var structs []ssa.Value
	for _, r := range *param.Referrers() {
		c, ok := r.(*ssa.Call)
		if !ok {
			continue
		}
		fn := callee(c.Common())
		recv, args := splitArgs(c.Common())
		if fn == nil || fn.Name() != "Scan" || recv != param || len(args) == 0 {
			continue
		}
		for _, fa := range scanFields(args[len(args)-1]) {
			if al, ok := fa.X.(*ssa.Alloc); ok && !containsValue(structs, al) {
				structs = append(structs, al)
			}
		}
	}
	if len(structs) == 0 {
		return -1
	}
	for _, b := range f.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for i, v := range r.Results {
			if containsValue(structs, v) {
				return i // &o
			}
			if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL && containsValue(structs, ld.X) {
				return i // o
			}
		}
	}
	return -1
}
