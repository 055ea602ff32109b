package analyzer

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// instances records the type arguments the program instantiates its
// generic functions and types with, so that a func-value call in a generic
// body (a generic queue's handler field, func(items ...T) []T) can be
// matched with the functions of the signatures it has in those
// instantiations. The builder does not build instantiated bodies, so the
// call graph cannot follow a value through one.
type instances struct {
	// args: for a generic function (its origin), or a generic type (the
	// receiver of a method), the concrete type arguments seen.
	args map[any][][]types.Type
	seen map[string]bool // owner and arguments already recorded
}

// newInstances collects the instantiations funcs call.
func newInstances(funcs []*ssa.Function) *instances {
	in := &instances{args: map[any][][]types.Type{}, seen: map[string]bool{}}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				ci, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				f := ci.Common().StaticCallee()
				if f == nil || f.Origin() == nil || len(f.TypeArgs()) == 0 {
					continue
				}
				targs := f.TypeArgs()
				concrete := true
				for _, t := range targs {
					if mentionsTypeParam(t, 0) {
						concrete = false
					}
				}
				if !concrete {
					continue
				}
				in.add(owner(f.Origin()), targs)
				// The generic types its signature names with concrete
				// arguments (a constructor's *Queue[Opts]).
				in.named(f.Signature.Params(), 0)
				in.named(f.Signature.Results(), 0)
			}
		}
	}
	return in
}

// add records targs as arguments of key's type parameters, once.
func (in *instances) add(key any, targs []types.Type) {
	id := types.TypeString(types.NewTuple(vars(targs)...), nil)
	switch k := key.(type) {
	case *types.TypeName:
		id = k.Pkg().Path() + "." + k.Name() + id
	case *ssa.Function:
		id = k.String() + id
	}
	if !in.seen[id] {
		in.seen[id] = true
		in.args[key] = append(in.args[key], targs)
	}
}

// named records the instantiated generic types t mentions.
func (in *instances) named(t types.Type, depth int) {
	if t == nil || depth > 4 {
		return
	}
	switch u := types.Unalias(t).(type) {
	case *types.Tuple:
		for i := 0; i < u.Len(); i++ {
			in.named(u.At(i).Type(), depth+1)
		}
	case *types.Pointer:
		in.named(u.Elem(), depth+1)
	case *types.Slice:
		in.named(u.Elem(), depth+1)
	case *types.Named:
		args := u.TypeArgs()
		if args.Len() == 0 || mentionsTypeParam(u, 0) {
			return
		}
		targs := make([]types.Type, args.Len())
		for i := range targs {
			targs[i] = args.At(i)
		}
		in.add(u.Origin().Obj(), targs)
	}
}

// owner is what a generic function's type parameters belong to: the
// receiver's generic type for a method, the function itself otherwise.
func owner(f *ssa.Function) any {
	if recv := f.Signature.Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Origin().Obj()
		}
	}
	return f
}

func vars(ts []types.Type) []*types.Var {
	out := make([]*types.Var, len(ts))
	for i, t := range ts {
		out[i] = types.NewVar(0, nil, "", t)
	}
	return out
}

// matching returns the taken functions (bySig, by sigKey) whose signature
// is sig, a signature in the generic body of fn, in one of the program's
// instantiations of fn.
func (in *instances) matching(fn *ssa.Function, bySig map[string][]*ssa.Function, sig *types.Signature) []*ssa.Function {
	top := fn
	for top.Parent() != nil {
		top = top.Parent()
	}
	tl := top.TypeParams()
	if tl == nil || tl.Len() == 0 {
		return nil
	}
	tparams := make([]*types.TypeParam, tl.Len())
	for i := range tparams {
		tparams[i] = tl.At(i)
	}
	var out []*ssa.Function
	for _, targs := range in.args[owner(top)] {
		if len(targs) != len(tparams) {
			continue
		}
		m := map[*types.TypeParam]types.Type{}
		for i, tp := range tparams {
			m[tp] = targs[i]
		}
		params, ok1 := subst(sig.Params(), m, 0).(*types.Tuple)
		results, ok2 := subst(sig.Results(), m, 0).(*types.Tuple)
		if !ok1 || !ok2 {
			continue
		}
		c := types.NewSignatureType(nil, nil, nil, params, results, sig.Variadic())
		for _, f := range bySig[sigKey(c)] {
			if !containsFunc(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// subst replaces the type parameters of t by m's types; nil when it cannot.
func subst(t types.Type, m map[*types.TypeParam]types.Type, depth int) types.Type {
	if t == nil || depth > 8 {
		return t
	}
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		if r, ok := m[u]; ok {
			return r
		}
		return u
	case *types.Tuple:
		if u == nil {
			return types.NewTuple()
		}
		vs := make([]*types.Var, u.Len())
		for i := 0; i < u.Len(); i++ {
			vs[i] = types.NewVar(u.At(i).Pos(), u.At(i).Pkg(), u.At(i).Name(), subst(u.At(i).Type(), m, depth+1))
		}
		return types.NewTuple(vs...)
	case *types.Pointer:
		return types.NewPointer(subst(u.Elem(), m, depth+1))
	case *types.Slice:
		return types.NewSlice(subst(u.Elem(), m, depth+1))
	case *types.Array:
		return types.NewArray(subst(u.Elem(), m, depth+1), u.Len())
	case *types.Chan:
		return types.NewChan(u.Dir(), subst(u.Elem(), m, depth+1))
	case *types.Map:
		return types.NewMap(subst(u.Key(), m, depth+1), subst(u.Elem(), m, depth+1))
	case *types.Signature:
		p, _ := subst(u.Params(), m, depth+1).(*types.Tuple)
		r, _ := subst(u.Results(), m, depth+1).(*types.Tuple)
		return types.NewSignatureType(nil, nil, nil, p, r, u.Variadic())
	case *types.Named:
		args := u.TypeArgs()
		if args.Len() == 0 {
			return u
		}
		nargs := make([]types.Type, args.Len())
		for i := 0; i < args.Len(); i++ {
			nargs[i] = subst(args.At(i), m, depth+1)
		}
		r, err := types.Instantiate(nil, u.Origin(), nargs, false)
		if err != nil {
			return u
		}
		return r
	}
	return t
}

// generic reports whether sig mentions a type parameter.
func generic(sig *types.Signature) bool {
	return mentionsTypeParam(sig.Params(), 0) || mentionsTypeParam(sig.Results(), 0)
}

// mentionsTypeParam reports whether t is or contains a type parameter.
func mentionsTypeParam(t types.Type, depth int) bool {
	if depth > 6 || t == nil {
		return false
	}
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			if mentionsTypeParam(t.At(i).Type(), depth+1) {
				return true
			}
		}
	case *types.Pointer:
		return mentionsTypeParam(t.Elem(), depth+1)
	case *types.Slice:
		return mentionsTypeParam(t.Elem(), depth+1)
	case *types.Array:
		return mentionsTypeParam(t.Elem(), depth+1)
	case *types.Chan:
		return mentionsTypeParam(t.Elem(), depth+1)
	case *types.Map:
		return mentionsTypeParam(t.Key(), depth+1) || mentionsTypeParam(t.Elem(), depth+1)
	case *types.Named:
		args := t.TypeArgs()
		for i := 0; i < args.Len(); i++ {
			if mentionsTypeParam(args.At(i), depth+1) {
				return true
			}
		}
	}
	return false
}
