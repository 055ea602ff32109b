package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// This file holds the yaml.Node walking: reading the document, mappings
// (with merge keys and duplicate detection), sequences and typed scalars,
// each reporting its errors at the node.

// Limits on the work of one Parse, whatever the spec: aliases and merge
// keys let a small file stand for a large tree (3000 consumers merging a
// mapping of 3000 unknown fields are 62 KB and nine million errors).
const (
	// maxNodes is how many YAML nodes Parse reads, aliases and merges
	// expanded, before it gives up: 2.5 times what the densest spec of 1 MiB
	// (10,000 consumers written out) takes.
	maxNodes = 250_000
	// maxErrors is how many errors Parse reports; a last line says how many
	// more there were.
	maxErrors = 100
)

// parser collects the errors of one Parse.
type parser struct {
	file string
	errs ErrorList

	nodes     int  // nodes read, for maxNodes
	exhausted bool // maxNodes reached: stop reading

	partitionNode *yaml.Node // migrations.partition, for the check against the dialect
	dropped       int        // errors past maxErrors

	// Filled lazily by boundary: the folder paths may not leave.
	boundaryDir string
	inModule    bool
	specDirAbs  string
	boundaryErr error
}

func (p *parser) pos(n *yaml.Node) Position {
	return Position{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	if len(p.errs) >= maxErrors {
		p.dropped++
		return
	}
	p.errs = append(p.errs, &Error{Pos: p.pos(n), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// spend counts k nodes read at n and reports whether Parse may go on: past
// maxNodes it reports that once and stops every loop.
func (p *parser) spend(n *yaml.Node, k int) bool {
	if p.exhausted {
		return false
	}
	p.nodes += k
	if p.nodes > maxNodes {
		p.exhausted = true
		p.errs = append(p.errs, &Error{Pos: p.pos(n), Msg: fmt.Sprintf(
			"the spec expands to more than %d YAML nodes through aliases and merge keys; write the repeated parts out, or split it into several specs", maxNodes)})
		return false
	}
	return true
}

// result returns the errors sorted, with a last line for those past
// maxErrors.
func (p *parser) result() ErrorList {
	errs := p.errs.sorted()
	if p.dropped > 0 {
		errs = append(errs, &Error{Pos: Position{File: p.file}, Msg: fmt.Sprintf("too many errors: %d more not shown", p.dropped)})
	}
	return errs
}

// yamlLine matches yaml.v3's syntax errors, which carry a line but no column.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) syntaxError(err error) {
	e := &Error{Pos: Position{File: p.file}, Msg: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		e.Pos.Line, e.Pos.Col = line, 1
		e.Msg = "yaml: " + m[2]
	}
	p.errs = append(p.errs, e)
}

// document parses data as a single YAML document and returns its root node,
// or nil after reporting why there is none.
func (p *parser) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errs = append(p.errs, &Error{Pos: Position{File: p.file, Line: 1, Col: 1}, Msg: "the spec is empty"})
		} else {
			p.syntaxError(err)
		}
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		p.syntaxError(err)
		return nil
	default:
		p.errorf(&extra, "", "a spec is a single YAML document, found a second one")
		return nil
	}
	if len(doc.Content) == 0 {
		p.errs = append(p.errs, &Error{Pos: Position{File: p.file, Line: 1, Col: 1}, Msg: "the spec is empty"})
		return nil
	}
	return deref(doc.Content[0])
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// describe names what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		switch tag := n.ShortTag(); tag {
		case "!!null":
			return "null"
		case "!!bool":
			return "boolean " + v
		case "!!int":
			return "integer " + v
		case "!!float":
			return "number " + v
		case "!!str", "!!timestamp":
			return strconv.Quote(v)
		default:
			// A tag may hold anything (%-escapes included): quoted.
			return strconv.Quote(tag) + " " + strconv.Quote(v)
		}
	}
	return "an alias"
}

// entry is one key: value pair of a mapping.
type entry struct {
	key, val *yaml.Node
	from     *yaml.Node // the mapping that holds the pair (differs from the read mapping when merged)
}

// mapping is a YAML mapping read by parser.mapping.
type mapping struct {
	node    *yaml.Node
	path    string
	entries map[string]entry
	order   []string // keys in document order, explicit keys before merged ones
}

func (m mapping) get(name string) (entry, bool) {
	e, ok := m.entries[name]
	return e, ok
}

// plainName is a field name a path shows as it is; others are quoted, so
// that an error never prints a control character or an ambiguous dot.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// join appends a field name to a path: "consumers[0].key", or
// `message.fields["a.b"]` for a name that is not plain.
func join(path, name string) string {
	switch {
	case !plainName.MatchString(name):
		return path + "[" + strconv.Quote(name) + "]"
	case path == "":
		return name
	}
	return path + "." + name
}

// mapping reads n as a mapping whose keys must be in known (any key when
// known is nil). It reports unknown and repeated keys and expands merge keys
// (<<), explicit keys winning over merged ones.
func (p *parser) mapping(n *yaml.Node, path string, known []string) (mapping, bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.expected(n, path, "a mapping")
		return mapping{}, false
	}
	m := mapping{node: n, path: path, entries: map[string]entry{}}
	if !p.spend(n, 1) {
		return mapping{}, false
	}
	p.collect(&m, n, known, map[*yaml.Node]bool{n: true})
	return m, !p.exhausted
}

func (p *parser) collect(m *mapping, n *yaml.Node, known []string, seen map[*yaml.Node]bool) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !p.spend(n, 1) {
			return
		}
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, m.path, "expected a field name, got %s", describe(k))
			continue
		}
		name := k.Value
		if known != nil && !slices.Contains(known, name) {
			if len(p.errs) >= maxErrors {
				p.dropped++ // not worth a suggestion
				continue
			}
			msg := fmt.Sprintf("unknown field %q", name)
			if s := suggest(name, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			p.errorf(k, m.path, "%s", msg)
			continue
		}
		if prev, dup := m.entries[name]; dup {
			// A key repeated in one mapping is an error; one that comes in
			// again through a merge is overridden.
			if prev.from == n {
				p.errorf(k, join(m.path, name), "duplicate field (first at line %d)", prev.key.Line)
			}
			continue
		}
		m.entries[name] = entry{key: k, val: v, from: n}
		m.order = append(m.order, name)
	}
	for _, v := range merges {
		v = deref(v)
		var sources []*yaml.Node
		switch v.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{v}
		case yaml.SequenceNode:
			for _, s := range v.Content {
				sources = append(sources, deref(s))
			}
		}
		for _, s := range sources {
			if s.Kind != yaml.MappingNode {
				p.errorf(s, m.path, "a merge key (<<) takes a mapping or a sequence of mappings, got %s", describe(s))
				continue
			}
			if seen[s] {
				continue
			}
			seen[s] = true
			p.collect(m, s, known, seen)
		}
		if len(sources) == 0 {
			p.errorf(v, m.path, "a merge key (<<) takes a mapping or a sequence of mappings, got %s", describe(v))
		}
	}
}

// suggest returns the known name closest to name, if it is close enough to
// be a typo.
func suggest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (p *parser) expected(n *yaml.Node, path, what string) {
	p.errorf(n, path, "expected %s, got %s", what, describe(n))
}

func (p *parser) missing(m mapping, name string) {
	p.errorf(m.node, m.path, "missing required field %q", name)
}

// sequence reads n as a sequence.
func (p *parser) sequence(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.expected(n, path, "a sequence")
		return nil, false
	}
	if !p.spend(n, 1+len(n.Content)) {
		return nil, false
	}
	return n.Content, true
}

func isString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	tag := n.ShortTag()
	// yaml.v3 tags unquoted dates as timestamps; in a string setting they
	// are just text.
	return tag == "!!str" || tag == "!!timestamp"
}

// str reads n as a string.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	n = deref(n)
	if !isString(n) {
		p.expected(n, path, "a string")
		return "", false
	}
	return n.Value, true
}

// oneOf reads n as a string that must be one of values; what names the
// setting in the message ("unknown effect ...").
func (p *parser) oneOf(n *yaml.Node, path, what string, values ...string) (string, bool) {
	v, ok := p.str(n, path)
	if !ok {
		return "", false
	}
	if !slices.Contains(values, v) {
		p.errorf(deref(n), path, "unknown %s %q (want %s)", what, v, list(values, "or"))
		return "", false
	}
	return v, true
}

// list joins values as "a, b or c".
func list(values []string, conj string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " " + conj + " " + values[len(values)-1]
}

// integer reads n as an integer.
func (p *parser) integer(n *yaml.Node, path string) (int, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		p.expected(n, path, "an integer")
		return 0, false
	}
	var v int
	if err := n.Decode(&v); err != nil {
		p.errorf(n, path, "integer %s is out of range", n.Value)
		return 0, false
	}
	return v, true
}

// duration reads n as a positive Go duration ("30s", "168h").
func (p *parser) duration(n *yaml.Node, path string) (time.Duration, bool) {
	n = deref(n)
	if !isString(n) {
		p.errorf(n, path, "expected a duration such as \"30s\" or \"168h\", got %s", describe(n))
		return 0, false
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		p.errorf(n, path, "invalid duration %q (use Go syntax: 30s, 15m, 168h)", n.Value)
		return 0, false
	}
	if d <= 0 {
		p.errorf(n, path, "duration must be positive, got %q", n.Value)
		return 0, false
	}
	return d, true
}

// durationAtLeast reads n as a duration of at least min. Below it, the
// error suggests the same number with unit, the likely typo: a retention of
// 168ns was meant as 168h, a lease of 30ms as 30s.
func (p *parser) durationAtLeast(n *yaml.Node, path string, min time.Duration, unit string) (time.Duration, bool) {
	d, ok := p.duration(n, path)
	if !ok {
		return 0, false
	}
	if d < min {
		p.errorf(deref(n), path, "%s", belowMinimum(deref(n).Value, d, min, unit))
		return 0, false
	}
	return d, true
}

// singleUnit matches a duration of one number and one unit.
var singleUnit = regexp.MustCompile(`^\+?([0-9]+(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)$`)

// belowMinimum says that the duration text (d) is below min, and suggests
// its number with unit when that is a duration of at least min.
func belowMinimum(text string, d, min time.Duration, unit string) string {
	msg := fmt.Sprintf("%s is below the minimum of %s", text, fmtDuration(min))
	if m := singleUnit.FindStringSubmatch(text); m != nil && m[2] != unit {
		if s, err := time.ParseDuration(m[1] + unit); err == nil && s >= min {
			msg += fmt.Sprintf("; did you mean %s%s?", m[1], unit)
		}
	}
	return msg
}
