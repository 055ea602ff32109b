package generator

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/idemkit/idem/spec"
	"github.com/idemkit/idem/spec/modfs"
)

// lowerName converts a snake_case name to an unexported Go name: the first
// part in lower case, the others as spec.GoName converts them
// (send_sms → sendSms, api_url → apiURL).
func lowerName(snake string) string {
	first, rest, _ := strings.Cut(snake, "_")
	return strings.ToLower(first) + spec.GoName(rest)
}

// packageNames returns the package-level identifiers the generated files
// of c declare, with the role of each.
func packageNames(c *spec.Consumer) [][2]string {
	t, lower := spec.GoName(c.Name), lowerName(c.Name)
	var names [][2]string
	add := func(name, role string) { names = append(names, [2]string{name, role}) }
	if c.Message.Type == "" {
		add(t, "message type")
	} else {
		add(lower+"Key", "key function")
		add(lower+"Fingerprint", "fingerprint function")
	}
	add(t+"Consumer", "consumer name constant")
	add(t+"KeyIdentity", "key identity constant")
	if c.Topic != "" {
		add(t+"Topic", "topic constant")
	}
	add(t+"Func", "apply func type")
	add(t+"Handler", "handler type")
	add("New"+t+"Handler", "handler constructor")
	return names
}

// wideNames are the package-level names of the file every spec's package
// gets (handlers_idem.go and the service stub), with the role of each.
var wideNames = map[string]string{
	effectsName:          "interface of the effects",
	storesName:           "struct of the stores",
	handlersName:         "struct of the handlers",
	"New" + handlersName: "constructor of the handlers",
	serviceName:          "struct of the effects' stub",
	// fanOut, unexported, cannot collide: a consumer's unexported names
	// end in Key or Fingerprint.
}

// topicsMethod is the method of the handlers struct that returns its
// handlers by topic; no consumer may give a field of that struct its name.
const topicsMethod = "Topics"

// checkNames reports package-level names of the generated package that two
// consumers would both declare (consumer x_consumer's type XConsumer and
// consumer x's constant XConsumer, say), or that a consumer would declare
// while the package-wide file declares it too (consumer handlers and the
// Handlers struct), which spec.Parse does not catch because they depend on
// what the generator declares.
func checkNames(s *spec.Spec) error {
	type owner struct {
		consumer int
		role     string
	}
	taken := map[string]owner{}
	var errs spec.ErrorList
	for i := range s.Consumers {
		c := &s.Consumers[i]
		collides := func(msg string) {
			errs = append(errs, &spec.Error{Pos: c.Pos, Path: fmt.Sprintf("consumers[%d].name", i), Msg: msg})
		}
		if t := spec.GoName(c.Name); t == topicsMethod {
			collides(fmt.Sprintf("Go name %s (its field of %s) collides with the method %s.%s idemgen declares; rename the consumer", t, handlersName, handlersName, topicsMethod))
			continue
		}
		reported := false
		for _, n := range packageNames(c) {
			if role, ok := wideNames[n[0]]; ok {
				collides(fmt.Sprintf("Go name %s (its %s) collides with the %s, %s, that idemgen declares for the package; rename the consumer", n[0], n[1], role, n[0]))
				reported = true
				break
			}
		}
		for _, n := range packageNames(c) {
			o, dup := taken[n[0]]
			if !dup {
				taken[n[0]] = owner{i, n[1]}
				continue
			}
			if !reported {
				collides(fmt.Sprintf("Go name %s (its %s) collides with the %s of consumers[%d] %q; rename one of them",
					n[0], n[1], o.role, o.consumer, s.Consumers[o.consumer].Name))
				reported = true
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// outputImportPath returns the import path of the generated package when
// a consumer names an existing Go type, so that a type in the generated
// package itself is not imported; "" when it cannot be known (no go.mod
// above the output folder) or is not needed.
func outputImportPath(s *spec.Spec) string {
	need := false
	for _, c := range s.Consumers {
		if c.Message.Resolved != nil {
			need = true
		}
	}
	if !need {
		return ""
	}
	out, err := filepath.Abs(filepath.Join(s.Dir, filepath.FromSlash(s.Output)))
	if err != nil {
		return ""
	}
	root, inModule, err := modfs.Root(out)
	if err != nil || !inModule {
		return ""
	}
	data, err := modfs.ReadFileAt(filepath.Join(root, "go.mod"), modfs.MaxFileSize)
	if err != nil {
		return ""
	}
	mod := modfile.ModulePath(data)
	rel, err := filepath.Rel(root, out)
	switch {
	case mod == "" || err != nil:
		return ""
	case rel == ".":
		return mod
	}
	return mod + "/" + filepath.ToSlash(rel)
}
