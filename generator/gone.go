package generator

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/idemkit/idem/spec"
	"github.com/idemkit/idem/spec/modfs"
)

// Gone is a consumer that is no longer in its spec while files of it are
// still in the spec's output folder: its generated handler, which Plan
// deletes, and its stub, which is the user's and stays, so that the user
// must delete or rename what it declares (it names the consumer's message
// type, which is gone: the package does not build until then).
type Gone struct {
	Consumer string // the consumer's name, from the file names
	// Handler is the path of its generated handler when the changes delete
	// it (KindDelete) or empty it (KindEmpty), else "".
	Handler string
	// Emptied says that the handler is emptied, not deleted (KindEmpty).
	Emptied bool
	// Stub is the path of its stub, <consumer>_apply.go, when that file
	// declares the consumer's effect, else "".
	Stub string
	// Effect names what Stub declares: "effect method SendSms" (a method of
	// Service, or of any type) or "apply function applySendSms" (the stub of
	// an idemgen from before Effects).
	Effect string
	// Renamed are the consumers of the spec that the plan creates (their
	// handler is new) and that record the key identity of this one, but for
	// the namespace: what it was likely renamed to. When none does, they are
	// every consumer the plan creates (the spec may have renamed it and
	// changed its key too), and SameKey is false.
	Renamed []string
	SameKey bool
}

// stubName matches the file names of stubs: a consumer's name (snake_case)
// and _apply.go.
var stubName = regexp.MustCompile(`^([a-z][a-z0-9]*(?:_[a-z0-9]+)*)_apply\.go$`)

// GoneConsumers returns the consumers gone from s whose files are still in
// its output folder, by name: those whose generated handler changes (Plan's
// or WriteAll's for s, in dir, its folder) delete or empty, and those whose
// stub still declares their effect. It reads the stubs as Plan reads files (package modfs); a
// stub it cannot read, or that does not parse, declares nothing.
func GoneConsumers(dir string, s *spec.Spec, changes []Change) ([]Gone, error) {
	t, err := modfs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	out := path.Clean(s.Output)
	current := map[string]bool{}
	for _, c := range s.Consumers {
		current[c.Name] = true
	}
	gone := map[string]*Gone{}
	get := func(name string) *Gone {
		if gone[name] == nil {
			gone[name] = &Gone{Consumer: name}
		}
		return gone[name]
	}
	var created []string
	recorded := map[string]string{}
	for _, c := range changes {
		name, ok := strings.CutSuffix(path.Base(c.File.Path), "_idem.go")
		if !ok || path.Dir(c.File.Path) != out || c.File.Mode != ModeGenerated {
			continue
		}
		switch c.Kind {
		case KindDelete, KindEmpty:
			g := get(name)
			g.Handler, g.Emptied = c.File.Path, c.Kind == KindEmpty
			if _, id, ok := recordedIdentity(c.Old, spec.GoName(name)); ok {
				recorded[name] = id
			}
		case KindCreate:
			if current[name] {
				created = append(created, name)
			}
		}
	}
	entries, err := t.ReadDir(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &FileError{Path: out, Err: modfs.Reason(err)}
	}
	for _, e := range entries {
		m := stubName.FindStringSubmatch(e.Name())
		if m == nil || current[m[1]] || !e.Type().IsRegular() {
			continue
		}
		p := path.Join(out, e.Name())
		src, err := t.ReadFile(p, modfs.MaxFileSize)
		if err != nil {
			continue
		}
		if effect := stubEffect(src, m[1]); effect != "" {
			g := get(m[1])
			g.Stub, g.Effect = p, effect
		}
	}
	var list []Gone
	for _, name := range slices.Sorted(maps.Keys(gone)) {
		g := gone[name]
		for _, n := range created {
			if sameKey(recorded[name], s, n) {
				g.Renamed = append(g.Renamed, n)
			}
		}
		g.SameKey = len(g.Renamed) > 0
		if !g.SameKey {
			g.Renamed = created
		}
		list = append(list, *g)
	}
	return list, nil
}

// sameKey reports whether the key identity recorded (of a consumer gone)
// is that of the consumer name of s, but for the namespace.
func sameKey(recorded string, s *spec.Spec, name string) bool {
	if recorded == "" {
		return false
	}
	old, err := spec.ParseKeyIdentity(recorded)
	if err != nil {
		return false
	}
	for i := range s.Consumers {
		if c := &s.Consumers[i]; c.Name == name {
			now := c.KeyIdentity()
			return old.Key == now.Key && old.Encoding == now.Encoding && old.Fingerprint == now.Fingerprint && old.HashTag == now.HashTag
		}
	}
	return false
}

// stubEffect returns what src, the stub of consumer, declares of its effect:
// "effect method <Name>" or "apply function apply<Name>", or "".
func stubEffect(src []byte, consumer string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	t := spec.GoName(consumer)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		switch {
		case !ok:
		case fd.Recv != nil && fd.Name.Name == t:
			return "effect method " + t
		case fd.Recv == nil && fd.Name.Name == "apply"+t:
			return "apply function apply" + t
		}
	}
	return ""
}
