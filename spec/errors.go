package spec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Position is a place in a spec file. Line and Col start at 1; a zero Line
// means the place is unknown (only the file is known).
type Position struct {
	File string
	Line int
	Col  int
}

// String returns "file:line:col", or just "file" when Line is zero.
func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one problem in a spec, at the node that causes it.
type Error struct {
	Pos  Position
	Path string // the offending setting: "consumers[1].key[0]"; empty for the whole file
	Msg  string // lowercase, no final period
}

// Error formats the error as "file:line:col: path: msg" (the path is left
// out when empty), for example
//
//	idem.yaml:14:12: consumers[1].key[0]: field "sku" is not declared in message
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a spec, sorted by position. Load,
// Parse and Resolve return their errors as an ErrorList; errors.As finds it,
// and each element through Unwrap.
type ErrorList []*Error

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors, so errors.As(err, &e) finds a *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sorted sorts the list by position (stable, so errors at the same place
// keep the order they were found in) and drops exact repeats, which aliased
// YAML nodes can produce.
func (l ErrorList) sorted() ErrorList {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
		)
	})
	seen := make(map[Error]bool, len(l))
	out := l[:0]
	for _, e := range l {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	return out
}
