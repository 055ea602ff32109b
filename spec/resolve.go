package spec

import (
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
)

// Resolve loads the Go types named by message.type (with go/packages, from
// Spec.Dir, so the spec's module and its go.mod decide what is found) and
// checks them: each must be a non-generic struct, and every key,
// fingerprint and hash_tag field must be the JSON name of an exported field
// (json tags honoured, "-" skipped, fields of embedded structs promoted as
// encoding/json does) with a type the key encoding supports. It fills
// Message.Resolved, Message.Fields (the usable fields) and, when the spec
// leaves it out, Consumer.Fingerprint. Errors are an ErrorList positioned at
// message.type. Resolve does nothing for specs without message.type; Load
// calls it after Parse.
func Resolve(s *Spec) error {
	var pkgPaths []string
	for _, c := range s.Consumers {
		if c.Message.Type == "" || c.Message.Resolved != nil {
			continue
		}
		pkgPath, _, err := splitType(c.Message.Type)
		if err == nil && !slices.Contains(pkgPaths, pkgPath) {
			pkgPaths = append(pkgPaths, pkgPath)
		}
	}
	if len(pkgPaths) == 0 {
		return nil
	}
	var errs ErrorList
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports,
		Dir:  s.Dir,
	}
	loaded, loadErr := packages.Load(cfg, pkgPaths...)
	byPath := map[string]*packages.Package{}
	for _, pkg := range loaded {
		byPath[pkg.PkgPath] = pkg
		byPath[pkg.ID] = pkg
	}
	for i := range s.Consumers {
		c := &s.Consumers[i]
		if c.Message.Type == "" || c.Message.Resolved != nil {
			continue
		}
		r := resolver{c: c, path: fmt.Sprintf("consumers[%d].message.type", i)}
		pkgPath, name, err := splitType(c.Message.Type)
		if err != nil {
			r.errorf("%v", err)
		} else if loadErr != nil {
			r.errorf("cannot load package %s: %s", pkgPath, oneLine(loadErr.Error()))
		} else {
			r.resolve(byPath[pkgPath], pkgPath, name)
		}
		errs = append(errs, r.errs...)
	}
	if len(errs) > 0 {
		return errs.sorted()
	}
	return nil
}

// resolver resolves the message.type of one consumer.
type resolver struct {
	c    *Consumer
	path string
	errs ErrorList
}

func (r *resolver) errorf(format string, args ...any) {
	r.errs = append(r.errs, &Error{Pos: r.c.Message.Pos, Path: r.path, Msg: fmt.Sprintf(format, args...)})
}

func (r *resolver) resolve(pkg *packages.Package, pkgPath, name string) {
	if pkg == nil || pkg.Types == nil {
		r.errorf("cannot load package %s", pkgPath)
		return
	}
	if len(pkg.Errors) > 0 {
		r.errorf("cannot load package %s: %s", pkgPath, oneLine(pkg.Errors[0].Msg))
		return
	}
	qual := func(p *types.Package) string { return p.Name() }
	display := pkg.Types.Name() + "." + name
	obj, ok := pkg.Types.Scope().Lookup(name).(*types.TypeName)
	if !ok {
		r.errorf("package %s has no type %s", pkgPath, name)
		return
	}
	if named, ok := obj.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
		r.errorf("%s is generic; name a non-generic struct type", display)
		return
	}
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		r.errorf("%s is not a struct (it is %s)", display, types.TypeString(obj.Type().Underlying(), qual))
		return
	}
	fields := jsonFields(st)
	byName := map[string]jsonField{}
	for _, f := range fields {
		byName[f.name] = f
	}
	// check reports whether the field called name can serve as what.
	check := func(what, name string, keyable bool) bool {
		f, ok := byName[name]
		switch {
		case !ok:
			hint := ""
			if i := slices.IndexFunc(fields, func(f jsonField) bool { return f.goName == name }); i >= 0 {
				hint = fmt.Sprintf(" (the Go field %s is %q in JSON)", name, fields[i].name)
			}
			r.errorf("%s field %q is not a JSON field of %s%s", what, name, display, hint)
		case f.problem != "":
			r.errorf("%s field %q %s", what, name, f.problem)
		case f.kind == "" || keyable && !isKeyable(f.kind):
			want := "string, int, int32, int64, uint32, uint64, bool or time.Time"
			if !keyable {
				want = "string, int, int32, int64, uint32, uint64, bool, float64, []byte or time.Time"
			}
			if isUUIDArray(f.typ) {
				r.errorf("%s field %q has Go type %s, a [16]byte UUID, which is not supported: use a string field holding the canonical form", what, name, types.TypeString(f.typ, qual))
			} else {
				r.errorf("%s field %q has Go type %s, which is not supported here (want %s)", what, name, types.TypeString(f.typ, qual), want)
			}
		default:
			return true
		}
		return false
	}
	for _, k := range r.c.Key {
		check("key", k, true)
	}
	if r.c.HashTag != "" {
		check("hash_tag", r.c.HashTag, true)
	}
	if r.c.Fingerprint != nil {
		for _, k := range r.c.Fingerprint {
			check("fingerprint", k, false)
		}
	} else {
		var bad []string
		for _, f := range fields {
			if !f.usable() {
				bad = append(bad, strconv.Quote(f.name))
			}
		}
		if len(bad) > 0 {
			r.errorf("fields %s of %s cannot be fingerprinted; list the fingerprint fields explicitly", strings.Join(bad, ", "), display)
		}
	}
	if len(r.errs) > 0 {
		return
	}
	r.c.Message.Resolved = &GoType{PkgPath: pkg.PkgPath, PkgName: pkg.Types.Name(), Name: name}
	r.c.Message.Fields = nil
	for _, f := range fields {
		if !f.usable() {
			continue
		}
		r.c.Message.Fields = append(r.c.Message.Fields, Field{
			Name:    f.name,
			Type:    f.kind,
			GoName:  f.goName,
			GoField: f.selector,
			GoType:  strings.ReplaceAll(types.TypeString(f.typ, qual), " ", ""),
			Pos:     r.c.Message.Pos,
		})
	}
	if r.c.Fingerprint == nil {
		r.c.Fingerprint = []string{}
		for _, f := range r.c.Message.Fields {
			r.c.Fingerprint = append(r.c.Fingerprint, f.Name)
		}
	}
}

// jsonField is a field of a struct as encoding/json sees it.
type jsonField struct {
	name     string // JSON name
	goName   string // Go field name
	selector string // path from the message value: "Meta.OrderID"
	typ      types.Type
	kind     string // spec field type, "" when not supported
	problem  string // why the field cannot be used although JSON sees it
	depth    int
	tagged   bool
}

// usable reports whether the field can be a key, fingerprint or hash_tag
// field: a supported type, reachable, and a JSON name of the spec's form
// (which generated code and comments can hold).
func (f jsonField) usable() bool {
	return f.kind != "" && f.problem == "" && badFieldName(f.name) == ""
}

// jsonFields lists the fields encoding/json decodes into st, in order:
// exported fields under their json tag name (or Go name), "-" skipped, the
// fields of untagged embedded structs promoted, and a name defined at
// several depths resolved as encoding/json does (shallowest wins, then the
// tagged one; otherwise the name is dropped).
func jsonFields(st *types.Struct) []jsonField {
	var all []jsonField
	collectFields(st, "", "", 0, map[*types.Struct]bool{st: true}, &all)
	var out []jsonField
	done := map[string]bool{}
	for i, f := range all {
		if done[f.name] {
			continue
		}
		done[f.name] = true
		var rivals []jsonField
		for _, g := range all[i:] {
			if g.name == f.name {
				rivals = append(rivals, g)
			}
		}
		depth := slices.MinFunc(rivals, func(a, b jsonField) int { return a.depth - b.depth }).depth
		var top, tagged []jsonField
		for _, g := range rivals {
			if g.depth == depth {
				top = append(top, g)
				if g.tagged {
					tagged = append(tagged, g)
				}
			}
		}
		switch {
		case len(top) == 1:
			out = append(out, top[0])
		case len(tagged) == 1:
			out = append(out, tagged[0])
		}
	}
	return out
}

func collectFields(st *types.Struct, prefix, problem string, depth int, visiting map[*types.Struct]bool, out *[]jsonField) {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i)).Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !isValidTag(name) {
			name = "" // as encoding/json: the Go name
		}
		if f.Embedded() && name == "" {
			t, ptr := f.Type(), false
			if p, ok := t.(*types.Pointer); ok {
				t, ptr = p.Elem(), true
			}
			if inner, ok := t.Underlying().(*types.Struct); ok {
				if visiting[inner] {
					continue
				}
				sub := problem
				switch {
				case sub != "":
				case ptr:
					sub = fmt.Sprintf("is reached through the embedded pointer %s, which may be nil", f.Name())
				case !f.Exported():
					sub = fmt.Sprintf("is reached through the unexported embedded field %s", f.Name())
				}
				visiting[inner] = true
				collectFields(inner, prefix+f.Name()+".", sub, depth+1, visiting, out)
				delete(visiting, inner)
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		jf := jsonField{
			name:     name,
			goName:   f.Name(),
			selector: prefix + f.Name(),
			typ:      f.Type(),
			kind:     kindOf(f.Type()),
			problem:  problem,
			depth:    depth,
			tagged:   name != "",
		}
		if jf.name == "" {
			jf.name = f.Name()
		}
		*out = append(*out, jf)
	}
}

// isValidTag reports whether encoding/json accepts name as a field's JSON
// name (its isValidTag); it uses the Go name for one it does not.
func isValidTag(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// kindOf maps a Go type to the spec field type the generator handles it as,
// by its underlying type; "" when unsupported.
func kindOf(t types.Type) string {
	if n, ok := t.(*types.Named); ok {
		if obj := n.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			return TypeTime
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.String:
			return TypeString
		case types.Int:
			return TypeInt
		case types.Int32:
			return TypeInt32
		case types.Int64:
			return TypeInt64
		case types.Uint32:
			return TypeUint32
		case types.Uint64:
			return TypeUint64
		case types.Bool:
			return TypeBool
		case types.Float64:
			return TypeFloat64
		}
	case *types.Slice:
		if b, ok := u.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			return TypeBytes
		}
	}
	return ""
}

// oneLine joins a multi-line message (the go command's, which may quote
// the module's sources) into one line, so that every error stays on a line
// of its own, with any other control character shown as "?".
func oneLine(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return '?'
		}
		return r
	}, msg)
}

// isUUIDArray reports whether t is a [16]byte type such as
// github.com/google/uuid.UUID.
func isUUIDArray(t types.Type) bool {
	a, ok := t.Underlying().(*types.Array)
	if !ok || a.Len() != 16 {
		return false
	}
	b, ok := a.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}
