package analyzer

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// Rows read the way layered services read them: a repository hands the
// query's row to a method of a row struct that scans it into its own
// fields, converts that struct to a domain value, and the handler reads
// the state through a getter:
//
//	var row orderRow
//	err := row.scanInto(db.QueryRowContext(ctx, "SELECT … FROM orders WHERE id = $1", id))
//	return row.toDomain(), err
//	…
//	if order.Status() == domain.StatusCompensated { return nil }
//
// The struct the helper scans into is the row; the converted value is the
// row too, its fields named as the row's; a getter's result is the field
// it returns.

// scanHelper is a call that scans a query's row into a struct: the call,
// and the struct (its argument) whose fields the scan fills.
type scanHelper struct {
	call *ssa.Call
	row  ssa.Value
}

// scanHelpers returns the calls that hand res (a query's row) to a
// function with a body that calls Scan on it with fields of another of its
// parameters.
func scanHelpers(res ssa.Value) []scanHelper {
	uses := []ssa.Value{res}
	for _, r := range *res.Referrers() {
		if mi, ok := r.(*ssa.MakeInterface); ok {
			uses = append(uses, mi)
		}
	}
	var out []scanHelper
	for _, u := range uses {
		for _, r := range *u.Referrers() {
			call, ok := r.(*ssa.Call)
			if !ok || call.Call.IsInvoke() {
				continue
			}
			fn := call.Call.StaticCallee()
			if fn == nil || fn.Blocks == nil || len(fn.Params) != len(call.Call.Args) {
				continue
			}
			for i, a := range call.Call.Args {
				if a != u {
					continue
				}
				if j := scannedParam(fn, fn.Params[i]); j >= 0 {
					out = append(out, scanHelper{call: call, row: call.Call.Args[j]})
				}
			}
		}
	}
	return out
}

// scannedParam returns the index of fn's parameter whose fields the Scan
// fn calls on scanner fills (r in s.Scan(&r.ID, &r.Status)), or -1.
func scannedParam(fn *ssa.Function, scanner *ssa.Parameter) int {
	for _, r := range *scanner.Referrers() {
		call, ok := r.(*ssa.Call)
		if !ok {
			continue
		}
		recv, args := splitArgs(call.Common())
		if fn := callee(call.Common()); recv != scanner || fn == nil || fn.Name() != "Scan" || len(args) == 0 {
			continue
		}
		for _, fa := range scanFields(args[len(args)-1]) {
			for j, p := range fn.Params {
				if fa.X == p {
					return j
				}
			}
		}
	}
	return -1
}

// rowView follows a row into a call that takes it: a getter's result is
// the field it returns, a conversion's result the row itself (added to the
// check's bases, so a function returning it returns the row).
func (s *summary) rowView(c *check, row ssa.Value, call *ssa.Call, depth int) {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil {
		return
	}
	if field, ok := getterField(fn); ok && len(call.Call.Args) == 1 && call.Call.Args[0] == row {
		if s.values[call] == nil {
			s.values[call] = &dval{chk: c, kind: vState, field: field}
		}
		return
	}
	if !isConversion(fn, call, row) {
		return
	}
	v := result(call, 0)
	if v == nil || s.values[v] != nil {
		return
	}
	s.values[v] = &dval{chk: c, kind: vState}
	c.bases = append(c.bases, v)
	s.stateValues(c, v, depth+1)
}

// getterField returns the field a method returns of its receiver
// (func (o Order) Status() Status { return o.status }).
func getterField(fn *ssa.Function) (string, bool) {
	if fn.Signature.Recv() == nil || fn.Signature.Results().Len() != 1 || len(fn.Blocks) != 1 || len(fn.Params) != 1 {
		return "", false
	}
	ret, ok := fn.Blocks[0].Instrs[len(fn.Blocks[0].Instrs)-1].(*ssa.Return)
	if !ok || len(ret.Results) != 1 {
		return "", false
	}
	recv := fn.Params[0]
	switch x := peel(ret.Results[0]).(type) {
	case *ssa.Field:
		if x.X == recv {
			return fieldName(x.X.Type(), x.Field), true
		}
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL && (fa.X == recv || slices.Contains(storedTo([]ssa.Value{fa.X}), ssa.Value(recv))) {
			return fieldName(fa.X.Type(), fa.Field), true
		}
	}
	return "", false
}

// isConversion reports whether a call makes another struct of row: row is
// its receiver or its one parameter besides a context, and its first
// result (the other may be an error) is a struct of a named type.
func isConversion(fn *ssa.Function, call *ssa.Call, row ssa.Value) bool {
	res := fn.Signature.Results()
	switch {
	case res.Len() == 1:
	case res.Len() == 2 && isError(res.At(1).Type()):
	default:
		return false
	}
	if typeTable(res.At(0).Type()) == "" {
		return false
	}
	in := 0
	for i, a := range call.Call.Args {
		if isContext(fn.Params[min(i, len(fn.Params)-1)].Type()) {
			continue
		}
		if a != row {
			return false
		}
		in++
	}
	return in == 1
}
