package analyzer

import (
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Failure paths: the branches a failed effect or processing step takes
// (an error tested, a response status), which IDEM003 looks at.

var decodeName = []string{"Unmarshal", "Decode", "Parse", "Valid", "Bind", "Scan", "Atoi", "Convert"}

// decodingName reports whether a function's name says it decodes, parses
// or validates (json.Unmarshal, parseEvent, sdk.JSONUnmarshal).
func decodingName(name string) bool {
	for _, n := range decodeName {
		if strings.Contains(name, n) || strings.HasPrefix(name, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

// failureSide returns which successor of in (0 or 1) is the failure side of
// an error test (err != nil), -1 when in is no such test. Errors of decoding
// and validation, of acks, and of reads do not count: acking a message that
// cannot be decoded is how poison messages are dropped.
func (a *pkgAnalysis) failureSide(s *summary, in *ssa.If) int {
	if side := a.boolFailureSide(in); side >= 0 {
		return side
	}
	x, side := nilTest(in.Cond)
	if side < 0 {
		return -1
	}
	if _, ok := a.respError(x); ok {
		// the error field of a response an API call filled
	} else if !isError(x.Type()) || !a.failingCall(x, 0) {
		return -1
	}
	return side
}

// nilTest reads a comparison with nil (x != nil, nil == x): the value
// compared and the successor (0 or 1) on which it is not nil; side -1
// when cond is no such comparison.
func nilTest(cond ssa.Value) (x ssa.Value, side int) {
	bin, ok := cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return nil, -1
	}
	x, y := bin.X, bin.Y
	if isNilConst(x) {
		x, y = y, x
	}
	if !isNilConst(y) {
		return nil, -1
	}
	if bin.Op == token.NEQ {
		return x, 0
	}
	return x, 1
}

// errCallDesc describes the call whose error an error test tests.
func errCallDesc(cond ssa.Value) string {
	if c, _ := boolCall(cond); c != nil {
		return describeCall(c.Common())
	}
	bin, ok := cond.(*ssa.BinOp)
	if !ok {
		return "a call"
	}
	v := bin.X
	if isNilConst(v) {
		v = bin.Y
	}
	for range 4 {
		switch x := v.(type) {
		case *ssa.Extract:
			v = x.Tuple
			continue
		case *ssa.UnOp:
			if c := errFieldCall(x); c != nil {
				return describeCall(c.Common())
			}
		case *ssa.Phi:
			for _, e := range x.Edges {
				if !isNilConst(e) {
					v = e
					break
				}
			}
			continue
		case *ssa.Call:
			return describeCall(x.Common())
		}
		break
	}
	return "a call"
}

// respError reports whether v is the error field (Err, Error) of a
// response struct that a call doing work filled in
// (api.PerformUpload(ctx, &req, &res); if res.Error != nil …), and which
// call.
func (a *pkgAnalysis) respError(v ssa.Value) (ssa.CallInstruction, bool) {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil, false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil, false
	}
	if n := fieldName(fa.X.Type(), fa.Field); n != "Err" && n != "Error" {
		return nil, false
	}
	if !types.Implements(ld.Type(), errorType.Underlying().(*types.Interface)) {
		return nil, false
	}
	for _, r := range *fa.X.Referrers() {
		ci, ok := r.(ssa.CallInstruction)
		if !ok {
			continue
		}
		for _, x := range ci.Common().Args {
			if x == fa.X {
				if fn := callee(ci.Common()); fn != nil && hasContextParam(fn) {
					return ci, true
				}
			}
		}
	}
	return nil, false
}

// hasContextParam reports whether fn takes a context.Context: a call that
// does work somewhere (a database, a service), rather than a computation.
func hasContextParam(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if isContext(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// testedErr returns the error of an `err != nil` (or ==) test, or the call
// whose bool a test of a failure bool tests.
func testedErr(cond ssa.Value) ssa.Value {
	if c, _ := boolCall(cond); c != nil {
		return c
	}
	bin, ok := cond.(*ssa.BinOp)
	if !ok {
		return nil
	}
	if isNilConst(bin.X) {
		return bin.Y
	}
	return bin.X
}

// failingCall reports whether the error v comes from a call whose failure
// matters (an effect, a dedup check, processing), not from decoding.
func (a *pkgAnalysis) failingCall(v ssa.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := v.(type) {
	case *ssa.Extract:
		return a.failingCall(x.Tuple, depth+1)
	case *ssa.UnOp:
		// An ORM chain's error field (gorm's db.Exec(…).Error): that
		// call failing.
		if c := a.ormErrCall(x); c != nil {
			return a.failingCall(c, depth+1)
		}
		return false
	case *ssa.Phi:
		for _, e := range x.Edges {
			if !isNilConst(e) && a.failingCall(e, depth+1) {
				return true
			}
		}
		return false
	case *ssa.Call:
		fn := callee(x.Common())
		if fn == nil {
			// A func value is processing, unless in a whole program every
			// function it can be is this program's and only decodes (a
			// preprocess callback that parses the message).
			return !a.decodesAll(a.callees[x])
		}
		if a.bookkeepingCall(x) {
			return false // an audit or status-log row not written
		}
		if x.Call.IsInvoke() && a.pkgs != nil && !a.clientPkg(fn) && a.decodesAll(a.callees[x]) {
			// An interface method of the program whose every
			// implementation in the whole program decodes or only writes
			// bookkeeping rows.
			return false
		}
		rules := a.callRules(x) // a client's method, or the program's interface over one
		for _, r := range rules {
			switch r.Role {
			case knowledge.Ack, knowledge.Nack, knowledge.Fetch, knowledge.RedisLookup, knowledge.Scan, knowledge.RowsAffected, knowledge.Prepare, knowledge.NewRequest,
				knowledge.Decode, knowledge.Telemetry, knowledge.Ignore:
				return false
			}
		}
		for _, r := range rules {
			if writes(r.Role) {
				return true // a catalogued write failing (smtp.SendMail takes no context)
			}
		}
		// The error of a go-redis command that writes (rdb.IncrBy(…).Err(),
		// a cache's rdb.Set(…).Err(), .Result()) is that write failing; the
		// error of franz-go's ProduceSync(…).FirstErr() is the publish's.
		if a.cat.Has(fn, knowledge.Reply) {
			rc := a.replied(x)
			return rc != nil && a.writesRule(rc)
		}
		// Other calls into a client library (a message's Metadata, a
		// reader's Config) fail harmlessly; its effects have rules.
		if a.clientPkg(fn) && len(rules) == 0 {
			return false
		}
		// A function of a dependency that takes no context (and is no
		// interface method) parses or validates: its
		// failure is a poison message (gomatrixserverlib.SplitID,
		// uuid.Parse), not a step that must be retried.
		if !x.Call.IsInvoke() && !hasContextParam(fn) && a.dependency(fn) {
			return false
		}
		if decodingName(fn.Name()) {
			return false
		}
		// A function of this package that performs no effect, writes
		// nothing (not even idempotently), publishes nothing, checks no
		// key, acks nothing and tests no failure of its own calls decodes
		// or validates: its failure is a poison message, not a lost
		// effect. One that tests the failure of a call it makes, or calls
		// a dependency's function that takes a context (an API client's
		// request, an upload), fails for reasons a redelivery may not meet
		// again.
		if f := callee(x.Common()); f != nil {
			if a.decodes(a.prog.FuncValue(f)) {
				return false
			}
		}
		return true
	}
	return false
}

// callsDynamic reports whether f calls a func value or an interface
// method, whose work its own summary does not show.
func callsDynamic(f *ssa.Function) bool {
	for ci := range callsIn(f) {
		if ci.Common().StaticCallee() == nil {
			return true
		}
	}
	return false
}

// clientPkg reports whether fn belongs to a client library the catalog
// knows.
func (a *pkgAnalysis) clientPkg(fn *types.Func) bool {
	return fn.Pkg() != nil && a.cat.Known(knowledge.NormPath(fn.Pkg().Path()))
}

// writes reports whether a call of a rule's role writes: an effect, a
// publish, or an idempotent write (a Redis SET, SADD, DEL, a KV put), whose
// failure loses work as much as an effect's (a cache left stale).
func writes(r knowledge.Role) bool {
	switch r {
	case knowledge.Effect, knowledge.Publish, knowledge.RedisMark, knowledge.RedisDel, knowledge.KVWrite:
		return true
	}
	return false
}

// replied returns the command a go-redis reply call reads (rdb.Set(…) of
// rdb.Set(…).Err()), nil when c is no reply.
func (a *pkgAnalysis) replied(c *ssa.Call) *ssa.Call {
	if !a.cat.Has(callee(c.Common()), knowledge.Reply) {
		return nil
	}
	recv, _ := splitArgs(c.Common())
	if fa, ok := recv.(*ssa.FieldAddr); ok {
		recv = fa.X // the embedded baseCmd of an IntCmd
	}
	if recv == nil {
		return nil
	}
	rc, _ := peel(recv).(*ssa.Call)
	return rc
}

// writesRule reports whether c calls a catalogued function that writes
// (see writes).
func (a *pkgAnalysis) writesRule(c *ssa.Call) bool {
	return slices.ContainsFunc(a.rulesOf(callee(c.Common())), func(r bound) bool { return writes(r.Role) })
}

// decodesAll reports whether fs, the functions a dynamic call can reach,
// are some and all decode (see decodes).
func (a *pkgAnalysis) decodesAll(fs []*ssa.Function) bool {
	for _, f := range fs {
		if !a.decodes(f) {
			return false
		}
	}
	return len(fs) > 0
}

// decodes reports whether f is a function of this program that performs no
// effect, writes nothing (not even idempotently), publishes nothing, checks
// no key, acks nothing, tests no failure of its own calls and calls no func
// value or interface method (whose work its summary does not show: a
// HandlerFunc adapter's HandleMessage): it decodes or validates, and its
// failure is a poison message.
func (a *pkgAnalysis) decodes(f *ssa.Function) bool {
	if f == nil || !a.local(f.Pkg) || f.Blocks == nil || callsDynamic(f) {
		return false
	}
	cs := a.summary(f)
	return len(cs.occs) == 0 && len(cs.checks) == 0 && len(cs.acks) == 0 && len(cs.writes) == 0 && cs.nwrites == 0 && !cs.sends && !cs.callsOut && len(cs.failures) == 0
}

// dependency reports whether fn is a function of a dependency, not of the
// program: in a whole program, one not built from source; in modular mode
// (where every other package is known only by facts), one outside the
// analysed package's module — the standard library included. In modular
// mode without a module (GOPATH, some drivers) nothing is known to be a
// dependency.
func (a *pkgAnalysis) dependency(fn *types.Func) bool {
	if a.pkgs != nil {
		sf := a.prog.FuncValue(fn)
		return sf == nil || !a.local(sf.Pkg)
	}
	if a.pass == nil || a.pass.Module == nil || a.pass.Module.Path == "" || fn.Pkg() == nil {
		return false
	}
	mod, path := a.pass.Module.Path, fn.Pkg().Path()
	return path != mod && !strings.HasPrefix(path, mod+"/")
}

// ormErrCall returns the ORM call whose error field v loads (gorm's
// db.Create(&o).Error), nil for any other value.
func (a *pkgAnalysis) ormErrCall(v *ssa.UnOp) *ssa.Call {
	c := errFieldCall(v)
	if c == nil {
		return nil
	}
	if orm := a.ormOf(c); orm == nil || orm.ErrorField == "" || fieldName(c.Type(), v.X.(*ssa.FieldAddr).Field) != orm.ErrorField {
		return nil
	}
	return c
}

// errFieldCall returns the call whose result's error-typed field v loads
// (the Error of a gorm chain), nil for any other value.
func errFieldCall(v *ssa.UnOp) *ssa.Call {
	if v.Op != token.MUL || !isError(v.Type()) {
		return nil
	}
	fa, ok := v.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	c, _ := fa.X.(*ssa.Call)
	return c
}
