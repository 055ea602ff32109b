package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A handler may answer its dispatcher with a struct whose bool field says
// whether to ack (return HandlerOutput{Ack: true}); the dispatcher tests
// the field of the result (if out := h(m); out.Ack { delete }).

// resultField is a value a dispatcher tests: a handler's result, or the
// bool field of it named field.
type resultField struct {
	v     ssa.Value
	field string
}

// boolFields returns the bool fields read from v, a struct result or a
// pointer to one, or from the local variable it is stored in.
func boolFields(v ssa.Value) []resultField {
	var out []resultField
	for _, r := range *v.Referrers() {
		var read ssa.Value
		var name string
		switch x := r.(type) {
		case *ssa.Store:
			if local, ok := x.Addr.(*ssa.Alloc); ok && x.Val == v {
				out = append(out, boolFields(local)...)
			}
		case *ssa.Field:
			if x.X == v {
				read, name = x, fieldName(v.Type(), x.Field)
			}
		case *ssa.FieldAddr:
			if x.X == v {
				read, name = loadOf(x), fieldName(v.Type(), x.Field)
			}
		}
		if read != nil && isBool(read.Type()) {
			out = append(out, resultField{v: read, field: name})
		}
	}
	return out
}

// loadOf returns the load of addr (*addr), nil when it has none.
func loadOf(addr ssa.Value) ssa.Value {
	for _, r := range *addr.Referrers() {
		if u, ok := r.(*ssa.UnOp); ok && u.Op == token.MUL && u.X == addr {
			return u
		}
	}
	return nil
}

// fieldValue returns the value a returned struct v (a composite literal,
// its address, or a zero value) holds in its field name: the one value
// stored there, false when nothing is, nil when it cannot tell.
func fieldValue(v ssa.Value, name string) ssa.Value {
	unset := ssa.NewConst(constant.MakeBool(false), types.Typ[types.Bool])
	if c, ok := v.(*ssa.Const); ok && c.Value == nil {
		return unset // T{}
	}
	vals, ok := storedField(v, name)
	switch {
	case !ok:
		return nil
	case len(vals) == 0:
		return unset
	case len(vals) == 1:
		return vals[0]
	}
	return nil
}
