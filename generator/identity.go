package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/idemkit/idem/spec"
)

// CheckKeyIdentities compares the key identity of every consumer of s with
// the one its generated handler on disk records, as Plan read it: changes
// are Plan's for the files of s. A handler that is unchanged records the
// same identity; one that is missing (a new consumer, or a file deleted)
// or not idemgen's records none; for one Plan would update, the old content
// is parsed with go/parser for its constants <Name>Consumer and
// <Name>KeyIdentity. When the recorded namespace is the consumer's and the
// identity differs, the spec's change would make every message handled
// before count as new (or, for the fingerprint, conflict): that is an
// error positioned at the consumer's key, fingerprint or hash_tag, which
// says how to keep the old one or move to a new namespace with
// key_version. A handler of an older idemgen, which records no identity, is
// accepted. Errors are a spec.ErrorList.
func CheckKeyIdentities(s *spec.Spec, changes []Change) error {
	old := map[string][]byte{}
	for _, c := range changes {
		if c.Kind == KindUpdate && c.File.Mode == ModeGenerated && !c.Foreign {
			old[c.File.Path] = c.Old
		}
	}
	var errs spec.ErrorList
	for i := range s.Consumers {
		c := &s.Consumers[i]
		src, ok := old[path.Join(path.Clean(s.Output), c.Name+"_idem.go")]
		if !ok {
			continue
		}
		ns, recorded, ok := recordedIdentity(src, spec.GoName(c.Name))
		if !ok || ns != c.Namespace() {
			continue
		}
		errs = append(errs, identityErrors(s, i, recorded)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// recordedIdentity returns the namespace and the key identity that the
// generated handler src of the consumer with Go name t records: the values
// of its constants tConsumer and tKeyIdentity. ok is false when src records
// no identity.
func recordedIdentity(src []byte, t string) (namespace, identity string, ok bool) {
	// A file that does not parse to the end may still hold the constants,
	// which come first.
	f, _ := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if f == nil {
		return "", "", false
	}
	values := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			if v, err := strconv.Unquote(lit.Value); err == nil {
				values[vs.Names[0].Name] = v
			}
		}
	}
	namespace, okNS := values[t+"Consumer"]
	identity, okID := values[t+"KeyIdentity"]
	return namespace, identity, okNS && okID
}

// identityErrors compares the identity the handler of s.Consumers[i]
// records with the consumer's and returns an error for each part that
// changed.
func identityErrors(s *spec.Spec, i int, recorded string) spec.ErrorList {
	c := &s.Consumers[i]
	now := c.KeyIdentity()
	if recorded == now.String() {
		return nil
	}
	at := func(p spec.Position) spec.Position {
		if p.Line == 0 {
			return c.Pos
		}
		return p
	}
	prefix := fmt.Sprintf("consumers[%d]", i)
	bump := fmt.Sprintf("set key_version: %d to start a new namespace (go doc github.com/idemkit/idem/spec: Key changes)", max(c.KeyVersion, 1)+1)
	changed := func(part, was, is string) string {
		if was == "" {
			was = "none"
		}
		if is == "" {
			is = "none"
		}
		return fmt.Sprintf("the key identity of %s changed (%s %s → %s)", c.Name, part, was, is)
	}
	old, err := spec.ParseKeyIdentity(recorded)
	if err != nil {
		// Another idemgen's format: all that is known is that it differs.
		return spec.ErrorList{{Pos: at(c.KeyPos), Path: prefix + ".key", Msg: fmt.Sprintf(
			"the key identity of %s changed (%q → %q): messages already handled would count as new and run their effect again; keep the old key, or %s", c.Name, recorded, now.String(), bump)}}
	}
	var errs spec.ErrorList
	if old.Key != now.Key || old.Encoding != now.Encoding {
		what := changed("key", old.Key, now.Key)
		if old.Key == now.Key {
			what = changed("key encoding", old.Encoding, now.Encoding)
		}
		errs = append(errs, &spec.Error{Pos: at(c.KeyPos), Path: prefix + ".key", Msg: fmt.Sprintf(
			"%s: messages already handled would count as new and run their effect again; keep the old key, or %s", what, bump)})
	}
	if old.Fingerprint != now.Fingerprint {
		keep := "keep the old fingerprint"
		if c.FingerprintPos.Line == 0 {
			// The default fingerprint, every field: a field was added or
			// removed.
			keep = fmt.Sprintf("keep the old fingerprint (list it: fingerprint: [%s])", strings.Join(spec.FieldNames(old.Fingerprint), ", "))
		}
		pos := c.FingerprintPos
		if pos.Line == 0 {
			pos = c.Message.Pos
		}
		errs = append(errs, &spec.Error{Pos: at(pos), Path: prefix + ".fingerprint", Msg: fmt.Sprintf(
			"%s: messages already handled would no longer match their recorded fingerprint, so their redeliveries would fail as guard.ErrKeyConflict instead of being acknowledged as duplicates; %s, or %s",
			changed("fingerprint", old.Fingerprint, now.Fingerprint), keep, bump)})
	}
	if old.HashTag != now.HashTag {
		errs = append(errs, &spec.Error{Pos: at(c.HashTagPos), Path: prefix + ".hash_tag", Msg: fmt.Sprintf(
			"%s: the dedup records of messages already handled live under the old hash tag, so those messages would count as new and run their effect again; keep the old hash_tag, or %s",
			changed("hash_tag", old.HashTag, now.HashTag), bump)})
	}
	return errs
}
