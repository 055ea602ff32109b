package analyzer

import (
	"fmt"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// Facts carry what a function does to callers in other packages, in
// standalone and vet mode alike (they are gob-encoded between units, so they
// hold positions as file/line/column, never token.Pos).

// effectsFact: the function performs effects that no dedup check inside it
// guards. Callers that are handlers report them at the call.
type effectsFact struct {
	Effects []factEffect
	Root    bool // the function is itself a handler; it reports its own effects
	// Tables are the tables the function writes, for a caller's lookup of
	// one of them before the call (check-then-act).
	Tables []string
}

// factEffect is one effect of a function, where it really happens.
type factEffect struct {
	Desc        string
	Kind        knowledge.Kind
	File        string
	Line, Col   int
	QueryParam  int  // >= 0: SQL text comes from this parameter; the caller's constant decides
	QueryRead   bool // with QueryParam: run as a query, a read unless the caller's text writes (INSERT … RETURNING)
	ErrResult   int  // >= 0: a plain INSERT whose error is returned as this result (a unique-violation check for callers)
	HeaderParam int  // >= 0: an HTTP call whose Idempotency-Key is this parameter (sent when not empty); the caller's argument decides
	MethodParam int  // >= 0: an HTTP call whose method is this parameter; the caller's constant decides (PUT, DELETE: no effect)
	// RequestParam >= 0: a remote call whose request is this parameter;
	// an idempotency-key field of the request the caller builds decides.
	RequestParam int
	Pooled       bool // the effect runs on a pool: it commits on its own
}

func (*effectsFact) AFact() {}

func (f *effectsFact) String() string {
	var parts []string
	for _, e := range f.Effects {
		parts = append(parts, e.Desc)
	}
	s := "effects(" + strings.Join(parts, "; ") + ")"
	if f.Root {
		s = "handler " + s
	}
	return s
}

func (e factEffect) position() string {
	if e.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(e.File), e.Line)
}

// impl is what a branch of a dedup decision implies about the key.
type impl uint8

const (
	implNone  impl = iota
	implFresh      // the key was not seen: the effect may run
	implDup        // a duplicate: the effect must not run
)

func (i impl) String() string {
	switch i {
	case implFresh:
		return "fresh"
	case implDup:
		return "duplicate"
	}
	return "?"
}

// vkind is the shape of a value that carries a dedup decision.
type vkind uint8

const (
	vBool    vkind = iota + 1 // true side implies T, false side implies F
	vInt                      // rows affected or a count: > 0 implies T, == 0 implies F
	vErr                      // error: nil implies T, non-nil implies F, the sentinel implies S
	vOutcome                  // guard.Outcome: Applied fresh, Duplicate dup
	vState                    // a looked-up row or one of its fields: a branch on it is oriented by where the effects are (states.go)
)

// dedupFact: the function returns a dedup decision in result Result.
type dedupFact struct {
	Result   int
	Kind     vkind
	T, F, S  impl
	Sentinel string         // vErr: the sentinel error's qualified name, if any
	KeyParam int            // the parameter the key comes from, -1 if unknown
	Store    knowledge.Kind // where the dedup record is written (knowledge.SQL, knowledge.Redis), 0 if unknown
	Pooled   bool           // the record is written on a pool: it commits on its own
	// FromErr, if not 0, is 1 + the index of the error parameter the bool
	// result is derived from (errverdicts.go): T and F are relative to it.
	FromErr int
}

func (*dedupFact) AFact() {}

func (f *dedupFact) String() string {
	if f.FromErr > 0 {
		return fmt.Sprintf("verdict(result %d of error parameter %d: true=%s, false=%s)", f.Result, f.FromErr-1, f.T, f.F)
	}
	switch f.Kind {
	case vBool:
		return fmt.Sprintf("dedup(result %d: true=%s, false=%s)", f.Result, f.T, f.F)
	case vInt:
		return fmt.Sprintf("dedup(result %d: >0=%s, 0=%s)", f.Result, f.T, f.F)
	case vErr:
		return fmt.Sprintf("dedup(result %d: nil=%s)", f.Result, f.T)
	}
	return fmt.Sprintf("dedup(result %d: outcome)", f.Result)
}

// guardedFact: the function calls its callback parameter Param only after a
// dedup check said the key is fresh (an adapter, a wrapper around a store).
type guardedFact struct{ Param int }

func (*guardedFact) AFact() {}

func (f *guardedFact) String() string { return fmt.Sprintf("guarded(param %d)", f.Param) }

// annotatedFact marks a function or interface method annotated with an
// //idem: directive in another package: //idem:effect, //idem:handler.
type annotatedFact struct{ Kind string }

func (*annotatedFact) AFact() {}

func (f *annotatedFact) String() string { return "idem:" + f.Kind }

// freshFact: the function's result differs on every call (it returns a
// random id, a timestamp): a key built from it dedups nothing.
type freshFact struct{ Gen string }

func (*freshFact) AFact() {}

func (f *freshFact) String() string { return "fresh(" + f.Gen + ")" }

// pkgFact marks a package that exports idem facts, so that importers cannot
// skip analysis on the fast path.
type pkgFact struct{}

func (*pkgFact) AFact() {}

func (*pkgFact) String() string { return "idemfacts" }

func toFactEffect(fset *token.FileSet, pos token.Pos, desc string, kind knowledge.Kind) factEffect {
	p := fset.Position(pos)
	return factEffect{Desc: desc, Kind: kind, File: p.Filename, Line: p.Line, Col: p.Column, QueryParam: -1, ErrResult: -1, HeaderParam: -1, MethodParam: -1, RequestParam: -1}
}
