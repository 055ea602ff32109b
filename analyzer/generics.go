package analyzer

import (
	"go/types"
	"strconv"
	"strings"

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
		for ci := range callsIn(fn) {
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

// paramTable prefixes the table of a model whose type is a type parameter
// of its generic function or type, followed by the parameter's index.
const paramTable = "model:$"

// argCols prefixes a column written that the function's caller names: the
// columns a parameter holds (a store's Update(ctx, obj, fields...) that
// calls Select(fields)), followed by the parameter's index, receiver
// excluded.
const argCols = "$arg:"

// asCalled returns cs, the summary of f's body, as a call of f with args
// sees it: the tables of models of type parameters (a generic store's
// First(&obj) or Save(obj) of a T) named by f's type arguments, so that
// Store[Order].Get is a lookup of orders and Store[Order].Update a write of
// them; the columns the caller names given by its arguments, or every
// column ("*") when it names none. Other summaries are returned as they
// are.
func (a *pkgAnalysis) asCalled(s, cs *summary, f *ssa.Function, args []ssa.Value) *summary {
	if !cs.namesParams() {
		return cs
	}
	targs := f.TypeArgs()
	table := func(t string) string {
		i, err := strconv.Atoi(strings.TrimPrefix(t, paramTable))
		switch {
		case !strings.HasPrefix(t, paramTable) || err != nil:
			return t
		case i < len(targs):
			return typeTable(targs[i])
		}
		return t // a body called with its own parameters
	}
	cols := func(m map[string]bool) map[string]bool {
		out := map[string]bool{}
		for c := range m {
			i, err := strconv.Atoi(strings.TrimPrefix(c, argCols))
			if !strings.HasPrefix(c, argCols) || err != nil {
				out[c] = true
				continue
			}
			if i >= len(args) || isNilConst(args[i]) {
				out["*"] = true // no columns named: gorm saves every one
				continue
			}
			named := reachedStrings(args[i])
			if j := paramIndex(s.fn, args[i]); len(named) == 0 && j >= 0 {
				named = []string{argCols + strconv.Itoa(j)} // named by our caller
			}
			for _, n := range named {
				out[n] = true
			}
		}
		return out
	}
	as := *cs
	as.writes = map[string]map[string]bool{}
	for t, written := range cs.writes {
		if t = table(t); t != "" {
			as.writes[t] = cols(written)
		}
	}
	if cs.row != nil {
		row := *cs.row
		row.Table = table(row.Table)
		as.row = &row
	}
	return &as
}

// namesParams reports whether s writes or returns a model of a type
// parameter, or writes columns its caller names.
func (s *summary) namesParams() bool {
	if s.row != nil && strings.HasPrefix(s.row.Table, paramTable) {
		return true
	}
	for t, cols := range s.writes {
		if strings.HasPrefix(t, paramTable) {
			return true
		}
		for c := range cols {
			if strings.HasPrefix(c, argCols) {
				return true
			}
		}
	}
	return false
}
