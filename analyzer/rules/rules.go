// Package rules reads idemlint's rules file, idemlint.yaml: a team's own
// effect functions, dedup checks, acks, message types, handler registration
// helpers and functions to ignore, named by qualified name, which extend
// the catalog of client libraries (package knowledge).
//
//	version: 1
//	effects:                # non-idempotent effects of the team's own code
//	  - (*example.com/ledger.Client).Append
//	  - name: example.com/sms.Send
//	    kind: http          # sql | redis | http | email | custom (the default)
//	dedup:                  # functions whose result is a dedup decision
//	  - name: (example.com/repo.Store).TryClaim
//	    true: fresh         # what a true bool result means: fresh (default) or duplicate
//	    key: id             # the parameter holding the key (a name or #N), optional
//	guarded:                # functions that run a callback only for a fresh key
//	  - name: example.com/dedupe.Once
//	    arg: fn
//	    key: key
//	acks:                   # acknowledge the message (or commit its offset)
//	  - (*example.com/bus.Delivery).Done
//	nacks:                  # ask for a redelivery
//	  - (*example.com/bus.Delivery).Retry
//	fetch:                  # return the next message(s): a loop over them is a handler
//	  - (*example.com/bus.Consumer).Next
//	messages:               # message types of the team's own bus
//	  - example.com/bus.Delivery
//	  - name: example.com/bus.Event
//	    return_ack: true    # handlers are acked by returning nil
//	handlers:               # registration helpers: the argument is a message handler
//	  - name: (*example.com/bus.Router).Register
//	    arg: handler
//	telemetry:              # logging, metrics, tracing wrappers: never effects
//	  - example.com/obs/...
//	ignore:                 # calls that are nothing to a handler
//	  - (*example.com/audit.Log).Record
//
// A name is a function (example.com/pkg.Func), a method
// ((*example.com/pkg.Type).Method, pointer or not), an interface method
// ((example.com/pkg.Iface).Method), every method of a name in a package
// ((example.com/pkg.*).Method), or a whole package (example.com/pkg, or
// example.com/pkg/... with its subpackages, for telemetry and ignore).
// Every error names the file, line and column.
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// FileName is the rules file idemlint looks for at the module root.
const FileName = "idemlint.yaml"

// maxSize bounds a rules file.
const maxSize = 1 << 20

// File is a parsed rules file.
type File struct {
	Path     string
	Rules    []knowledge.Rule
	Messages []knowledge.Message
}

// Error is a positioned error of a rules file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Load reads and parses the rules file at path. It refuses a path that is
// not a regular file (a symlink, a device) or larger than 1 MiB.
func Load(path string) (*File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	if fi.Size() > maxSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", maxSize)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Find returns the rules file at the root of the module that contains dir
// (the nearest folder above it with a go.mod), "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, FileName)
			if _, err := os.Lstat(p); err == nil {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// section says how the entries of a top-level key become rules.
type section struct {
	role   knowledge.Role
	fields map[string]bool // keys an entry may have besides name
}

var sections = map[string]section{
	"effects":   {knowledge.Effect, map[string]bool{"kind": true}},
	"dedup":     {knowledge.Dedup, map[string]bool{"true": true, "key": true}},
	"guarded":   {knowledge.GuardInside, map[string]bool{"arg": true, "key": true}},
	"acks":      {knowledge.Ack, nil},
	"nacks":     {knowledge.Nack, nil},
	"fetch":     {knowledge.Fetch, nil},
	"handlers":  {knowledge.Register, map[string]bool{"arg": true}},
	"telemetry": {knowledge.Telemetry, nil},
	"ignore":    {knowledge.Ignore, nil},
	"messages":  {0, map[string]bool{"return_ack": true}},
}

var kinds = map[string]knowledge.Kind{
	"sql": knowledge.SQL, "redis": knowledge.Redis, "http": knowledge.HTTP, "email": knowledge.SMTP,
	"mongo": knowledge.Mongo, "custom": knowledge.Custom,
}

// Parse parses a rules file's content; name is used in errors. Every error
// found is returned, joined, each with its position.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil // an empty file
		}
		return nil, yamlError(name, err)
	}
	var errs []error
	bad := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &Error{File: name, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		bad(root, "want a mapping of sections (version, effects, dedup …)")
		return nil, errors.Join(errs...)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			bad(k, "%s given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if k.Value == "version" {
			if v.Kind != yaml.ScalarNode || v.Value != "1" {
				bad(v, "version: want 1")
			}
			continue
		}
		sec, ok := sections[k.Value]
		if !ok {
			bad(k, "unknown section %q (want version, %s)", k.Value, sectionList())
			continue
		}
		if v.Kind != yaml.SequenceNode {
			if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				bad(v, "%s: want a list", k.Value)
			}
			continue
		}
		for j, e := range v.Content {
			where := fmt.Sprintf("%s[%d]", k.Value, j)
			entry, ok := parseEntry(e, where, sec, bad)
			if !ok {
				continue
			}
			if k.Value == "messages" {
				if strings.HasPrefix(entry.name, "(") || !strings.Contains(entry.name, ".") {
					bad(entry.nameNode, "%s: want a qualified type name (example.com/pkg.Type)", where)
					continue
				}
				f.Messages = append(f.Messages, knowledge.Message{Type: entry.name, Client: "rules", ReturnAck: entry.fields["return_ack"] == "true"})
				continue
			}
			r := knowledge.Rule{Name: entry.name, Role: sec.role, Client: "rules", Pos: fmt.Sprintf("%s:%d:%d", name, entry.nameNode.Line, entry.nameNode.Column)}
			if err := knowledge.CheckName(entry.name, sec.role == knowledge.Telemetry || sec.role == knowledge.Ignore); err != nil {
				bad(entry.nameNode, "%s: %v", where, err)
				continue
			}
			switch sec.role {
			case knowledge.Effect:
				r.Kind = knowledge.Custom
				if kv, ok := entry.fields["kind"]; ok {
					kd, ok := kinds[kv]
					if !ok {
						bad(entry.nodes["kind"], "%s.kind: want sql, redis, http, email, mongo or custom, not %q", where, kv)
						continue
					}
					r.Kind = kd
				}
			case knowledge.Dedup:
				r.Fresh = "fresh"
				if t, ok := entry.fields["true"]; ok {
					if t != "fresh" && t != "duplicate" {
						bad(entry.nodes["true"], "%s.true: want fresh or duplicate, not %q", where, t)
						continue
					}
					r.Fresh = t
				}
				r.Key = entry.fields["key"]
			case knowledge.GuardInside, knowledge.Register:
				r.Arg = entry.fields["arg"]
				r.Key = entry.fields["key"]
				if r.Arg == "" {
					bad(e, "%s: want arg, the parameter that takes the callback", where)
					continue
				}
			}
			f.Rules = append(f.Rules, r)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

type entry struct {
	name     string
	nameNode *yaml.Node
	fields   map[string]string
	nodes    map[string]*yaml.Node
}

// parseEntry reads one entry of a section: a name, or a mapping with a
// name and the section's fields.
func parseEntry(e *yaml.Node, where string, sec section, bad func(*yaml.Node, string, ...any)) (entry, bool) {
	out := entry{fields: map[string]string{}, nodes: map[string]*yaml.Node{}}
	switch e.Kind {
	case yaml.ScalarNode:
		out.name, out.nameNode = strings.TrimSpace(e.Value), e
	case yaml.MappingNode:
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], e.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				bad(v, "%s.%s: want a string", where, k.Value)
				return out, false
			}
			switch {
			case k.Value == "name":
				out.name, out.nameNode = strings.TrimSpace(v.Value), v
			case sec.fields[k.Value]:
				if _, dup := out.fields[k.Value]; dup {
					bad(k, "%s.%s given twice", where, k.Value)
					return out, false
				}
				out.fields[k.Value], out.nodes[k.Value] = strings.TrimSpace(v.Value), v
			default:
				bad(k, "%s: unknown key %q%s", where, k.Value, fieldList(sec))
				return out, false
			}
		}
		if out.nameNode == nil {
			bad(e, "%s: want name", where)
			return out, false
		}
	default:
		bad(e, "%s: want a name or a mapping with name", where)
		return out, false
	}
	if out.name == "" {
		bad(out.nameNode, "%s: empty name", where)
		return out, false
	}
	return out, true
}

func sectionList() string {
	return "effects, dedup, guarded, acks, nacks, fetch, messages, handlers, telemetry or ignore"
}

func fieldList(sec section) string {
	var fs []string
	for f := range sec.fields {
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		return " (want name)"
	}
	sort.Strings(fs)
	return " (want name, " + strings.Join(fs, ", ") + ")"
}

// yamlError turns a yaml.v3 error ("yaml: line 3: …") into a positioned
// Error.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		rest := msg[strings.Index(msg, ":")+1:]
		return &Error{File: name, Line: line, Col: 1, Msg: strings.TrimSpace(rest)}
	}
	return &Error{File: name, Msg: msg}
}
