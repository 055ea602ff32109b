package analyzer

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"iter"
	"regexp"
	"strings"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/ssa"
)

// Small helpers over SSA values: callees, arguments, constant strings,
// results of calls, and backward walks.

// callsIn yields the call instructions of fn's body, block by block.
func callsIn(fn *ssa.Function) iter.Seq[ssa.CallInstruction] {
	return func(yield func(ssa.CallInstruction) bool) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if ci, ok := instr.(ssa.CallInstruction); ok && !yield(ci) {
					return
				}
			}
		}
	}
}

// fieldStores yields the stores of fn's body into a field of a struct
// (x.f = v, a composite literal's fields), with the field's address.
func fieldStores(fn *ssa.Function) iter.Seq2[*ssa.Store, *ssa.FieldAddr] {
	return func(yield func(*ssa.Store, *ssa.FieldAddr) bool) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				if fa, ok := st.Addr.(*ssa.FieldAddr); ok && !yield(st, fa) {
					return
				}
			}
		}
	}
}

// callee returns the function or method a call instruction calls: the
// static callee's object, or the interface method of an invoke.
func callee(cc *ssa.CallCommon) *types.Func {
	if cc.IsInvoke() {
		return cc.Method
	}
	if fn := cc.StaticCallee(); fn != nil {
		if obj, ok := fn.Object().(*types.Func); ok {
			return obj.Origin()
		}
		if o := fn.Origin(); o != nil {
			if obj, ok := o.Object().(*types.Func); ok {
				return obj
			}
		}
	}
	return nil
}

// splitArgs returns the receiver (nil for a function) and the other
// arguments of a call.
func splitArgs(cc *ssa.CallCommon) (recv ssa.Value, args []ssa.Value) {
	if cc.IsInvoke() {
		return cc.Value, cc.Args
	}
	if fn := cc.StaticCallee(); fn != nil && fn.Signature.Recv() != nil && len(cc.Args) > 0 {
		return cc.Args[0], cc.Args[1:]
	}
	if sig := cc.Signature(); sig != nil && sig.Recv() != nil && len(cc.Args) > 0 {
		return cc.Args[0], cc.Args[1:]
	}
	return nil, cc.Args
}

func arg(args []ssa.Value, i int) ssa.Value {
	if i >= 0 && i < len(args) {
		return args[i]
	}
	return nil
}

// result returns the value of result i of call: an Extract of the tuple,
// or the call itself when it has one result. nil when unused.
func result(v ssa.Value, i int) ssa.Value {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	tup, ok := call.Type().(*types.Tuple)
	if !ok {
		if i == 0 {
			return call
		}
		return nil
	}
	if tup.Len() == 1 && i == 0 {
		return call
	}
	for _, r := range *call.Referrers() {
		if ex, ok := r.(*ssa.Extract); ok && ex.Index == i {
			return ex
		}
	}
	return nil
}

// errResult returns the value of the last result of call when it is an error.
func errResult(v ssa.Value) ssa.Value {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	switch t := call.Type().(type) {
	case *types.Tuple:
		if t.Len() > 0 && isError(t.At(t.Len()-1).Type()) {
			return result(call, t.Len()-1)
		}
	default:
		if isError(t) {
			return call
		}
	}
	return nil
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// roleCalls returns the calls on receiver v of the methods the catalog
// gives role (RowsAffected of a Result, Outcome of a lease, Decode of a
// FindOne's result).
func (a *pkgAnalysis) roleCalls(v ssa.Value, role knowledge.Role) []*ssa.Call {
	if v == nil {
		return nil
	}
	var out []*ssa.Call
	refs := append([]ssa.Instruction(nil), *v.Referrers()...)
	// Methods promoted from an embedded field are called on its address.
	for _, r := range *v.Referrers() {
		if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == v && embedded(v.Type(), fa.Field) {
			refs = append(refs, *fa.Referrers()...)
		}
	}
	for _, r := range refs {
		call, ok := r.(*ssa.Call)
		if !ok {
			continue
		}
		fn := callee(call.Common())
		if fn == nil {
			continue
		}
		recv, _ := splitArgs(call.Common())
		if recv != v && userRecv(recv) != v {
			continue
		}
		if a.cat.Has(fn, role) {
			out = append(out, call)
		}
	}
	return out
}

// ormOf returns the catalog's ORM whose builder v is (a *gorm.DB), or nil.
func (a *pkgAnalysis) ormOf(v ssa.Value) *knowledge.ORM {
	if n, ok := types.Unalias(derefType(v.Type())).(*types.Named); ok && n.Obj().Pkg() != nil {
		return a.cat.ORM(n.Obj().Pkg().Path())
	}
	return nil
}

// fieldLoads returns the loads of field name of the struct v points to.
func fieldLoads(v ssa.Value, name string) []ssa.Value {
	var out []ssa.Value
	for _, r := range *v.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != v || fieldName(fa.X.Type(), fa.Field) != name {
			continue
		}
		for _, rr := range *fa.Referrers() {
			if u, ok := rr.(*ssa.UnOp); ok && u.Op == token.MUL {
				out = append(out, u)
			}
		}
	}
	return out
}

func fieldName(t types.Type, i int) string {
	if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if s, ok := types.Unalias(t).Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i).Name()
	}
	return ""
}

// peel strips conversions that do not change a value's identity.
func peel(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		case *ssa.Convert:
			v = x.X
		default:
			return v
		}
	}
}

// constString returns the string value of a constant.
func constString(v ssa.Value) (string, bool) {
	c, ok := peel(v).(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(c.Value), true
}

func constBool(v ssa.Value) (bool, bool) {
	c, ok := peel(v).(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Bool {
		return false, false
	}
	return constant.BoolVal(c.Value), true
}

func constInt(v ssa.Value) (int64, bool) {
	c, ok := peel(v).(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	n, ok := constant.Int64Val(c.Value)
	return n, ok
}

func isNilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// globalName returns "pkgpath.Name" when v is a load of a package variable,
// and `pkgpath.Type("text")` for a string constant of a named type (go-redis's
// Nil is a constant of type proto.RedisError): how sentinels are named.
func globalName(v ssa.Value) string {
	v = peel(v)
	if c, ok := v.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.String {
		if t := knowledge.QualifiedType(c.Type()); t != "" {
			return t + "(" + c.Value.ExactString() + ")"
		}
	}
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		if g, ok := u.X.(*ssa.Global); ok && g.Pkg != nil {
			return knowledge.NormPath(g.Pkg.Pkg.Path()) + "." + g.Name()
		}
	}
	return ""
}

var fmtVerb = regexp.MustCompile(`%[-+# 0-9.*\[\]]*[a-zA-Z%]`)

// formatted returns what fmt.Sprintf(format, args...) gives: a %s or %v
// whose argument is a constant string (a table name: fmt.Sprintf("INSERT
// INTO %s …", TableJobLogs)) becomes that string, every other verb an
// identifier (sqlclass.Unknown).
func (a *pkgAnalysis) formatted(format string, args ssa.Value, depth int) string {
	vals := indexedValues(args)
	i := 0
	return fmtVerb.ReplaceAllStringFunc(format, func(verb string) string {
		if verb == "%%" {
			return "%"
		}
		if strings.ContainsAny(verb, "*[") {
			vals = nil // arguments out of order: none is known
		}
		v := vals[i]
		i++
		if verb == "%s" || verb == "%v" {
			if t, _, ok := a.texts(v, depth+1); ok && len(t) == 1 {
				return t[0]
			}
		}
		return sqlclass.Unknown
	})
}

// indexedValues returns the values stored into a variadic slice, by their
// index (nil where unknown).
func indexedValues(v ssa.Value) map[int]ssa.Value {
	sl, ok := v.(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	vals := map[int]ssa.Value{}
	for _, r := range *alloc.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		k, ok := constInt(ia.Index)
		if !ok {
			continue
		}
		for _, rr := range *ia.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == ia {
				vals[int(k)] = peel(st.Val)
			}
		}
	}
	return vals
}

// texts returns the possible constant values of a string value: constants,
// concatenations, phis of those, fmt.Sprintf with a constant format (verbs
// become an identifier), package variables initialised with constants.
// param >= 0 when the text is a parameter of fn (its callers decide).
func (a *pkgAnalysis) texts(v ssa.Value, depth int) (out []string, param int, ok bool) {
	param = -1
	if depth > 8 || v == nil {
		return nil, -1, false
	}
	v = peel(v)
	switch x := v.(type) {
	case *ssa.Const:
		if s, ok := constString(x); ok {
			return []string{s}, -1, true
		}
	case *ssa.Parameter:
		fn := x.Parent()
		for i, p := range fn.Params {
			if p == x {
				if fn.Signature.Recv() != nil {
					i--
				}
				return nil, i, false
			}
		}
	case *ssa.BinOp:
		if x.Op != token.ADD {
			break
		}
		l, _, ok1 := a.texts(x.X, depth+1)
		r, _, ok2 := a.texts(x.Y, depth+1)
		if !ok1 || !ok2 || len(l)*len(r) > 16 {
			break
		}
		for _, s := range l {
			for _, t := range r {
				out = append(out, s+t)
			}
		}
		return out, -1, true
	case *ssa.Phi:
		for _, e := range x.Edges {
			t, _, ok := a.texts(e, depth+1)
			if !ok {
				return nil, -1, false
			}
			out = append(out, t...)
		}
		return out, -1, len(out) > 0
	case *ssa.Extract:
		// query, args := ub.Build(): a SQL builder's statement.
		if call, ok := x.Tuple.(*ssa.Call); ok && x.Index == 0 {
			if t, ok := a.builtQuery(call); ok {
				return []string{t}, -1, true
			}
		}
	case *ssa.Call:
		fn := callee(x.Common())
		if fn == nil {
			break
		}
		switch fn.FullName() {
		case "fmt.Sprintf":
			if f, _, ok := a.texts(x.Call.Args[0], depth+1); ok && len(f) == 1 {
				return []string{a.formatted(f[0], x.Call.Args[1], depth)}, -1, true
			}
			return nil, -1, false
		case "strings.Replace", "strings.ReplaceAll":
			// A statement whose placeholders are replaced (a variadic IN
			// list): the statement's kind stays.
			base, _, ok := a.texts(x.Call.Args[0], depth+1)
			if !ok {
				return nil, -1, false
			}
			old, knownOld := constString(x.Call.Args[1])
			repl, knownNew := constString(x.Call.Args[2])
			if !knownNew {
				repl = sqlclass.Unknown
			}
			for _, b := range base {
				if knownOld && old != "" {
					b = strings.ReplaceAll(b, old, repl)
				}
				out = append(out, b)
			}
			return out, -1, true
		}
		// A function from one string to a string (strings.TrimSpace, a
		// dialect's Rebind) keeps the statement's kind.
		if b, ok := x.Type().Underlying().(*types.Basic); ok && b.Kind() == types.String {
			var str ssa.Value
			n := 0
			for _, arg := range x.Call.Args {
				if b, ok := arg.Type().Underlying().(*types.Basic); ok && b.Kind() == types.String {
					str, n = arg, n+1
				}
			}
			if n == 1 {
				if t, _, ok := a.texts(str, depth+1); ok {
					return t, -1, true
				}
			}
		}
	case *ssa.UnOp:
		if g, ok := x.X.(*ssa.Global); ok && x.Op == token.MUL {
			if vals := a.globalInits()[g]; len(vals) == 1 {
				return a.texts(vals[0], depth+1)
			}
		}
		// An element of a slice literal of statements, run in a loop
		// (for _, q := range steps { tx.Exec(ctx, q) }): every element.
		if ia, ok := x.X.(*ssa.IndexAddr); ok && x.Op == token.MUL {
			if elems := sliceElems(ia.X); len(elems) > 0 && len(elems) <= 16 {
				return a.textsOfAll(elems, depth+1)
			}
			break
		}
		// A struct field holding a named query of the module's .sql
		// files (goyesql's query:"name" tag).
		if q := a.namedQuery(x); q != nil {
			return a.texts(q, depth+1)
		}
		// A struct field holding a statement, set in a constructor.
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			if vals := a.fieldInits()[fieldKey(fa)]; len(vals) > 0 && len(vals) <= 4 {
				return a.textsOfAll(vals, depth+1)
			}
		}
	}
	return nil, -1, false
}

// textsOfAll returns the texts of every value of vs (see texts); not ok
// when one of them has none.
func (a *pkgAnalysis) textsOfAll(vs []ssa.Value, depth int) (out []string, param int, ok bool) {
	for _, v := range vs {
		t, _, ok := a.texts(v, depth)
		if !ok {
			return nil, -1, false
		}
		out = append(out, t...)
	}
	return out, -1, true
}

// globalInits maps the package's variables to the values stored in them.
func (a *pkgAnalysis) globalInits() map[*ssa.Global][]ssa.Value {
	if a.globals != nil {
		return a.globals
	}
	a.globals = map[*ssa.Global][]ssa.Value{}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if st, ok := instr.(*ssa.Store); ok {
					if g, ok := st.Addr.(*ssa.Global); ok {
						a.globals[g] = append(a.globals[g], st.Val)
					}
				}
			}
		}
	}
	return a.globals
}

func fieldKey(fa *ssa.FieldAddr) string {
	return fieldKeyOf(fa.X, fa.Field)
}

// fieldKeyOf is fieldKey of the field i of the struct x (or x points to).
func fieldKeyOf(x ssa.Value, i int) string {
	return types.TypeString(derefType(x.Type()), nil) + "#" + fmt.Sprint(i)
}

// fieldInits maps struct fields to the values the analysed code stores in
// them (a query string, a client made by its constructor).
func (a *pkgAnalysis) fieldInits() map[string][]ssa.Value {
	if a.fields != nil {
		return a.fields
	}
	a.fields = map[string][]ssa.Value{}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				if fa, ok := st.Addr.(*ssa.FieldAddr); ok {
					k := fieldKey(fa)
					a.fields[k] = append(a.fields[k], st.Val)
				}
			}
		}
	}
	return a.fields
}

// walk visits v and the values it is built from (operands, values stored
// into it, elements of literals), calling f on each; f returns false to
// not go further from a value.
func walk(v ssa.Value, limit int, f func(ssa.Value) bool) {
	seen := map[ssa.Value]bool{}
	var visit func(v ssa.Value, d int)
	visit = func(v ssa.Value, d int) {
		if v == nil || seen[v] || d > limit || len(seen) > 400 {
			return
		}
		seen[v] = true
		if !f(v) {
			return
		}
		switch x := v.(type) {
		case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeSlice:
			for _, r := range *v.Referrers() {
				switch r := r.(type) {
				case *ssa.Store:
					if r.Addr == v {
						visit(r.Val, d+1)
					}
				case *ssa.MapUpdate:
					if r.Map == v {
						visit(r.Key, d+1)
						visit(r.Value, d+1)
					}
				case *ssa.IndexAddr, *ssa.FieldAddr:
					for _, rr := range *r.(ssa.Value).Referrers() {
						if st, ok := rr.(*ssa.Store); ok && st.Addr == r.(ssa.Value) {
							visit(st.Val, d+1)
						}
						if fa, ok := rr.(*ssa.FieldAddr); ok {
							visit(fa, d+1)
						}
					}
				}
			}
		case *ssa.FieldAddr:
			for _, rr := range *x.Referrers() {
				if st, ok := rr.(*ssa.Store); ok && st.Addr == x {
					visit(st.Val, d+1)
				}
			}
			visit(x.X, d+1)
		case *ssa.Call:
			for _, a := range x.Call.Args {
				visit(a, d+1)
			}
			if x.Call.IsInvoke() {
				visit(x.Call.Value, d+1)
			}
		case ssa.Instruction:
			for _, op := range x.Operands(nil) {
				if *op != nil {
					visit(*op, d+1)
				}
			}
		}
	}
	visit(v, 0)
}

// reachedStrings returns the constant strings v is built from.
func reachedStrings(v ssa.Value) []string {
	var out []string
	walk(v, 12, func(x ssa.Value) bool {
		if s, ok := constString(x); ok {
			out = append(out, s)
		}
		return true
	})
	return out
}

// reachedCalls returns the functions whose results v is built from.
func reachedCalls(v ssa.Value) []*types.Func {
	var out []*types.Func
	walk(v, 12, func(x ssa.Value) bool {
		if c, ok := x.(*ssa.Call); ok {
			if fn := callee(c.Common()); fn != nil {
				out = append(out, fn)
			}
		}
		return true
	})
	return out
}

// storedField returns the values stored into field name of the struct
// literal v (an Alloc, or a load of one) is built from.
func storedField(v ssa.Value, name string) (vals []ssa.Value, found bool) {
	v = peel(v)
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	alloc, ok := v.(*ssa.Alloc)
	if !ok {
		return nil, false
	}
	for _, r := range *alloc.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fieldName(alloc.Type(), fa.Field) != name {
			continue
		}
		for _, rr := range *fa.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == fa {
				vals = append(vals, st.Val)
			}
		}
	}
	return vals, true
}

// keyIndependent reports whether a dedup key is built only from constants
// and fresh values (uuid.New, time.Now …): a key that differs on every
// delivery, so the check never sees a duplicate. Anything it cannot follow
// (a parameter, a field, an unknown call) counts as depending on the message.
func (a *pkgAnalysis) keyIndependent(v ssa.Value) (bool, string) {
	if v == nil {
		return false, ""
	}
	// A part new on every delivery makes the whole key new, whatever else
	// it holds (the worker's name, the message's id).
	if g := a.perDelivery(v); g != "" {
		return true, g
	}
	independent, fresh := true, ""
	walk(v, 10, func(x ssa.Value) bool {
		if !independent {
			return false
		}
		switch x := x.(type) {
		case *ssa.Const:
			return false
		case *ssa.Call:
			fn := callee(x.Common())
			if g := a.freshFunc(fn); g != "" {
				fresh = g
				return false
			}
			if fn == nil || len(x.Call.Args) == 0 && !x.Call.IsInvoke() {
				independent = false
			}
			return true
		case *ssa.Parameter, *ssa.FreeVar, *ssa.Global, *ssa.Alloc, *ssa.FieldAddr, *ssa.Field, *ssa.Extract, *ssa.IndexAddr, *ssa.Lookup:
			if al, ok := x.(*ssa.Alloc); ok && a.filledByRand(al) {
				fresh = "rand.Read"
				return false
			}
			if ex, ok := x.(*ssa.Extract); ok {
				if c, ok := ex.Tuple.(*ssa.Call); ok {
					fn := callee(c.Common())
					if fn != nil && a.cat.Has(fn, knowledge.FreshValue) {
						fresh = fn.Pkg().Name() + "." + fn.Name()
						return false
					}
				}
			}
			independent = false
			return false
		}
		return true
	})
	return independent && fresh != "", fresh
}

// perDelivery returns what makes a key value new on every delivery — a
// random or unique id (uuid.New, rand, a helper with a freshFact), the
// clock to the second or finer (time.Now().UnixNano()), a per-delivery
// field — or "" when no part of it is. A date (time.Now().Format(…)) is
// not: it is stable across a quick redelivery.
func (a *pkgAnalysis) perDelivery(v ssa.Value) string {
	gen := ""
	walk(v, 10, func(x ssa.Value) bool {
		if gen != "" {
			return false
		}
		switch x := x.(type) {
		case *ssa.Call:
			fn := callee(x.Common())
			if fn == nil {
				return true
			}
			if a.cat.Has(fn, knowledge.ClockMethod) {
				if recv, _ := splitArgs(x.Common()); recv != nil && clockNow(recv) {
					gen = "time.Now()." + fn.Name()
				}
				return false
			}
			if fn.Origin().FullName() == "time.Now" {
				return false // alone: see keyIndependent
			}
			if g := a.freshFunc(fn); g != "" && g != "time.Now" {
				gen = g
				return false
			}
		case *ssa.Alloc:
			if a.filledByRand(x) {
				gen = "rand.Read"
				return false
			}
		case *ssa.Extract:
			if c, ok := x.Tuple.(*ssa.Call); ok {
				if fn := callee(c.Common()); fn != nil && a.cat.Has(fn, knowledge.FreshValue) && fn.Origin().FullName() != "time.Now" {
					gen = fn.Pkg().Name() + "." + fn.Name()
					return false
				}
			}
		case *ssa.FieldAddr, *ssa.Field:
			if name := qualifiedField(x); a.cat.PerDelivery(name) {
				gen = name[strings.LastIndex(name, "/")+1:]
				return false
			}
		}
		return true
	})
	return gen
}

// clockNow reports whether v is time.Now(), possibly through a variable.
func clockNow(v ssa.Value) bool {
	found := false
	walk(v, 3, func(x ssa.Value) bool {
		if c, ok := x.(*ssa.Call); ok {
			if fn := callee(c.Common()); fn != nil && fn.FullName() == "time.Now" {
				found = true
			}
		}
		return !found
	})
	return found
}

// qualifiedField returns "pkgpath.Struct.Field" for a field selection.
func qualifiedField(v ssa.Value) string {
	var st types.Type
	var idx int
	switch x := v.(type) {
	case *ssa.FieldAddr:
		st, idx = x.X.Type(), x.Field
	case *ssa.Field:
		st, idx = x.X.Type(), x.Field
	default:
		return ""
	}
	typ, field := namedPath(st), fieldName(st, idx)
	if typ == "" || field == "" {
		return ""
	}
	return typ + "." + field
}

// filledByRand reports whether a local array is filled with random bytes
// (rand.Read(b[:])): a value built from it differs on every call.
func (a *pkgAnalysis) filledByRand(al *ssa.Alloc) bool {
	for _, r := range *al.Referrers() {
		sl, ok := r.(*ssa.Slice)
		if !ok {
			continue
		}
		for _, rr := range *sl.Referrers() {
			call, ok := rr.(*ssa.Call)
			if !ok {
				continue
			}
			if fn := callee(call.Common()); fn != nil && a.cat.Has(fn, knowledge.RandRead) {
				return true
			}
		}
	}
	return false
}

// freshFunc returns the generator behind a function whose result differs on
// every call: a known one (uuid.New, time.Now …), a function of this package
// that returns only such values, or one of another package with a
// freshFact; "" otherwise.
func (a *pkgAnalysis) freshFunc(fn *types.Func) string {
	if fn == nil {
		return ""
	}
	fn = fn.Origin()
	if a.cat.Has(fn, knowledge.FreshValue) {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	if g, ok := a.fresh[fn]; ok {
		return g
	}
	a.fresh[fn] = "" // recursion guard
	g := ""
	if f := a.prog.FuncValue(fn); f != nil && a.local(f.Pkg) {
		if f.Blocks != nil && f.Signature.Results().Len() > 0 {
			for _, b := range f.Blocks {
				r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
				if !ok {
					continue
				}
				ind, gen := a.keyIndependent(returned(r, 0))
				if !ind {
					g = ""
					break
				}
				g = gen
			}
		}
	} else {
		var ff freshFact
		if a.importFact(fn, &ff) {
			g = ff.Gen
		}
	}
	a.fresh[fn] = g
	return g
}

// shortFunc names a function for messages: pkg.Func or pkg.Type.Method.
func shortFunc(fn *types.Func) string {
	if fn == nil {
		return "?"
	}
	fn = fn.Origin()
	pkg := ""
	if fn.Pkg() != nil {
		pkg = fn.Pkg().Name() + "."
	}
	_, recv := knowledge.FuncKey(fn)
	if recv != "" {
		return pkg + recv + "." + fn.Name()
	}
	return pkg + fn.Name()
}

// describeCall names a call for messages, using the receiver's static type
// (redis.Client.IncrBy rather than redis.cmdable.IncrBy).
func describeCall(cc *ssa.CallCommon) string {
	fn := callee(cc)
	if fn == nil {
		if name := funcFieldName(cc.Value); name != "" {
			return name // a func field's call: ev.Ack()
		}
		return "call"
	}
	recv, _ := splitArgs(cc)
	if recv != nil {
		recv = userRecv(recv)
		t := types.Unalias(recv.Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
			return n.Obj().Pkg().Name() + "." + n.Obj().Name() + "." + fn.Name()
		}
	}
	return shortFunc(fn)
}

// funcFieldName names the struct field v is loaded from
// ("events.PostEvent.Ack"); "" when v is no field of a named struct.
func funcFieldName(v ssa.Value) string {
	x, i := loadedField(v)
	if x == nil {
		return ""
	}
	n, ok := types.Unalias(derefType(x.Type())).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Name() + "." + n.Obj().Name() + "." + n.Underlying().(*types.Struct).Field(i).Name()
}

// loadedField returns the struct (or the pointer to it) v is a field of,
// and that field's index: v is x.f, or a load of &x.f; nil for any other
// value.
func loadedField(v ssa.Value) (ssa.Value, int) {
	switch f := peel(v).(type) {
	case *ssa.Field:
		return f.X, f.Field
	case *ssa.UnOp:
		if fa, ok := f.X.(*ssa.FieldAddr); ok && f.Op == token.MUL {
			return fa.X, fa.Field
		}
	}
	return nil, 0
}

// userRecv undoes the implicit selection of an embedded field, so that a
// promoted method is named after the type it was called on.
func userRecv(v ssa.Value) ssa.Value {
	for range 4 {
		switch x := v.(type) {
		case *ssa.UnOp:
			fa, ok := x.X.(*ssa.FieldAddr)
			if !ok || x.Op != token.MUL || !embedded(fa.X.Type(), fa.Field) {
				return v
			}
			v = fa.X
		case *ssa.FieldAddr:
			if !embedded(x.X.Type(), x.Field) {
				return v
			}
			v = x.X
		case *ssa.Field:
			if !embedded(x.X.Type(), x.Field) {
				return v
			}
			v = x.X
		default:
			return v
		}
	}
	return v
}

func embedded(t types.Type, i int) bool {
	if s, ok := derefType(t).Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i).Embedded()
	}
	return false
}

// snippet shortens SQL text for messages.
func snippet(q string) string {
	q = strings.ReplaceAll(strings.Join(strings.Fields(q), " "), sqlclass.Unknown, "%s")
	if len(q) > 64 {
		q = q[:63] + "…"
	}
	return fmt.Sprintf("%q", q)
}

// sqlShaped reports whether an interface method looks like database/sql's
// (sqlc's DBTX) or pgx's: a name of the catalog's SQLShapes and a signature
// (ctx, string, ...any); m is how its SQL is read.
func sqlShaped(cat *knowledge.Catalog, fn *types.Func) (m knowledge.Mode, ok bool) {
	if m, ok = cat.SQLShape(fn.Name()); !ok {
		return m, false
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Params().Len() != 3 || !sig.Variadic() {
		return m, false
	}
	p := sig.Params()
	b, ok := p.At(1).Type().Underlying().(*types.Basic)
	return m, ok && b.Kind() == types.String && isContext(p.At(0).Type())
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// Verbs of methods that write, for -iface=verbs.
var writeVerbs = []string{
	"Create", "Insert", "Add", "Incr", "Increment", "Decr",
	"Decrement", "Deduct", "Debit", "Credit", "Charge", "Send", "Notify", "Enqueue",
	"Append", "Push", "Record", "Reserve", "Transfer", "Pay", "Refund", "Apply",
	"Award", "Grant", "Withdraw", "Deposit", "Emit", "Bump",
}

func writeVerb(name string) bool { return knowledge.HasVerb(name, writeVerbs) }

// isBool reports whether t is a boolean type.
func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// returned returns the i-th value r returns. In a function with deferred
// calls a return stores its values into result slots, runs the defers and
// returns the slots' loads (return nil is *t0 = nil; rundefers; return
// *t0): the value stored in r's block before it is what is returned.
func returned(r *ssa.Return, i int) ssa.Value {
	v := r.Results[i]
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return v
	}
	slot, ok := ld.X.(*ssa.Alloc)
	if !ok {
		return v
	}
	instrs := r.Block().Instrs
	for j := len(instrs) - 1; j >= 0; j-- {
		if st, ok := instrs[j].(*ssa.Store); ok && st.Addr == slot {
			return st.Val
		}
	}
	return v
}
