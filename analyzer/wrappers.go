package analyzer

import (
	"go/token"
	"go/types"
	"sort"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A company's consumer wrapped around a broker client (ecodeclub/mq-api
// over kafka-go, say): a goroutine of the wrapper fetches with the client
// and queues each message, converted to the wrapper's own type, on a
// channel; the wrapper's Consume receives from that channel and returns
// the message, or its ConsumeChan returns the channel; or a thin layer's
// FetchMessage fetches and returns the message copied field by field into
// the layer's own type. To the service,
// Consume is a fetch API and the wrapper's type is a message, though the
// catalog knows neither. In a whole program (the driver reads a broker
// wrapper among the dependencies from source), learnWrappers finds such
// functions and adds them to the analysis's catalog as if it listed them:
// a Fetch rule for the function and for the interface methods the program
// calls it through, an AutoAckRead rule when the client's read commits by
// itself (kafka-go's ReadMessage on a reader with a GroupID), and the type
// it returns as a message of the client's.

// learnWrappers adds the program's fetch wrappers, and the messages of its
// adapters (adapters.go) and event functions (events.go), to a.cat (whole-program mode, before any
// function is summarised).
func (a *pkgAnalysis) learnWrappers() {
	type learnt struct {
		commits bool
		msg     *knowledge.Message
	}
	wrappers := map[*ssa.Function]learnt{}
	for _, fn := range a.funcs {
		if fn.Parent() != nil {
			continue
		}
		calls, t := a.returnedFed(fn)
		if len(calls) == 0 {
			calls, t = a.returnedHolders(fn)
		}
		if len(calls) == 0 {
			calls, t = a.returnedCopies(fn)
		}
		if len(calls) == 0 {
			calls, t = a.returnedAckers(fn)
		}
		if len(calls) == 0 {
			continue
		}
		msg := a.wrapperMessage(t, calls)
		if hm := a.holderMessage(t); msg != nil && hm != nil {
			msg.Client, msg.Offsets = hm.Client, hm.Offsets // the client's message it keeps
		}
		wrappers[fn] = learnt{a.commitsOnRead(calls), msg}
	}
	known := map[*ssa.Function]bool{}
	for fn, w := range wrappers {
		known[fn] = w.commits
	}
	for fn, d := range a.derivedWrappers(known) {
		// The program's own named type of what it hands back (type
		// Message kafka.Message) is a message of the client's.
		var msg *knowledge.Message
		if t := valueResult(fn); t != nil {
			msg = a.wrapperMessage(t, d.calls)
		}
		wrappers[fn] = learnt{d.commits, msg}
	}
	adapters := append(a.adapterMessages(), a.eventMessages()...)
	if len(wrappers) == 0 && len(adapters) == 0 {
		return
	}
	rules := map[string]bool{} // name → commits
	add := func(fn *types.Func, commits bool) {
		if name := ruleName(fn); name != "" {
			rules[name] = rules[name] || commits
		}
	}
	msgs := map[string]knowledge.Message{}
	for fn, w := range wrappers {
		if obj, ok := fn.Object().(*types.Func); ok {
			add(obj, w.commits)
		}
		if w.msg != nil {
			msgs[w.msg.Type] = *w.msg
		}
	}
	// The interface methods the program calls a wrapper through
	// (c.consumer.Consume(ctx) on an mq.Consumer).
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				ci, ok := instr.(ssa.CallInstruction)
				if !ok || !ci.Common().IsInvoke() {
					continue
				}
				for _, f := range a.callees[ci] {
					if w, ok := wrappers[f]; ok {
						add(ci.Common().Method, w.commits)
					}
				}
			}
		}
	}
	var extra []knowledge.Rule
	for name, commits := range rules {
		extra = append(extra, knowledge.Rule{Name: name, Role: knowledge.Fetch, Learned: true})
		if commits {
			extra = append(extra, knowledge.Rule{Name: name, Role: knowledge.AutoAckRead, Learned: true,
				AutoCommit: &knowledge.AutoCommit{Always: true}})
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].Name < extra[j].Name })
	var messages []knowledge.Message
	for _, m := range msgs {
		messages = append(messages, m)
	}
	for _, m := range adapters {
		if _, dup := msgs[m.Type]; !dup {
			messages = append(messages, m)
		}
	}
	sort.Slice(messages, func(i, j int) bool { return messages[i].Type < messages[j].Type })
	cat, err := a.cat.With(extra, messages)
	if err != nil {
		return // a name the catalog cannot hold: nothing learnt
	}
	a.cat = cat
	a.fed = nil // the wrappers' channels now carry messages
}

// returnedFed reports the fetch calls feeding what fn returns, when it
// returns an item it received from a fed channel (or the channel itself),
// and the type of that result.
func (a *pkgAnalysis) returnedFed(fn *ssa.Function) ([]ssa.CallInstruction, types.Type) {
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for _, v := range ret.Results {
			if isError(v.Type()) {
				continue
			}
			if calls := a.fedValue(v, true); len(calls) > 0 {
				return calls, v.Type()
			}
		}
	}
	return nil, nil
}

// A batch fetcher of the program: a function that polls the client and
// returns what it got wrapped in its own type, one that keeps the client's
// message for the commit,
//
//	func (c *Consumers) fetchBatch(ctx context.Context, k *kafka.Consumer) ([]message, error) {
//		…
//		if m, ok := k.Poll(100).(*kafka.Message); ok {
//			batch = append(batch, message{value: m.Value, raw: m})
//		}
//		…
//		return batch, nil
//	}
//
// is a fetch API too, and its type a message of the client's.

// returnedHolders returns the fetch calls of fn and the type of its first
// result that is not an error, when fn calls a fetch of the catalog and
// that result is a struct type of the program holding a field of a
// message type (or a slice of, or a pointer to, one).
func (a *pkgAnalysis) returnedHolders(fn *ssa.Function) ([]ssa.CallInstruction, types.Type) {
	t := valueResult(fn)
	if t == nil || a.holderMessage(t) == nil {
		return nil, nil
	}
	return a.fetchCalls(fn), t
}

// valueResult returns the type of fn's first result that is not an error,
// nil when it has none.
func valueResult(fn *ssa.Function) types.Type {
	res := fn.Signature.Results()
	for i := 0; i < res.Len(); i++ {
		if !isError(res.At(i).Type()) {
			return res.At(i).Type()
		}
	}
	return nil
}

// fetchCalls returns fn's calls of a fetch of the catalog.
func (a *pkgAnalysis) fetchCalls(fn *ssa.Function) []ssa.CallInstruction {
	var calls []ssa.CallInstruction
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if ci, ok := instr.(ssa.CallInstruction); ok && a.callHas(ci, knowledge.Fetch) {
				calls = append(calls, ci)
			}
		}
	}
	return calls
}

// returnedCopies returns the fetch calls of fn and the type of its first
// result that is not an error, when that result is a struct of the program
// (or a slice of them) that fn fills with fields of the fetched message (a
// wrapper's own Message{Key: msg.Key, Value: msg.Value, Offset:
// msg.Offset}, SQS's ReceivedMessage{Body: aws.ToString(m.Body)} for each
// m of out.Messages).
func (a *pkgAnalysis) returnedCopies(fn *ssa.Function) ([]ssa.CallInstruction, types.Type) {
	t := valueResult(fn)
	et := t
	if sl, ok := types.Unalias(derefType(t)).(*types.Slice); ok {
		et = sl.Elem() // a batch of copies
	}
	own := a.ownStruct(et)
	if own == nil {
		return nil, nil
	}
	var calls []ssa.CallInstruction
	fetched := map[ssa.Value]bool{}
	for _, ci := range a.fetchCalls(fn) {
		call, ok := ci.(*ssa.Call)
		if !ok || a.cat.Message(firstResult(call.Type())) == nil && a.heldMessage(firstResult(call.Type())) == nil {
			continue
		}
		calls = append(calls, ci)
		fetched[call] = true
		for _, r := range *call.Referrers() {
			if x, ok := r.(*ssa.Extract); ok && x.Index == 0 {
				fetched[x] = true
				for _, rr := range *x.Referrers() {
					if st, ok := rr.(*ssa.Store); ok && st.Val == x {
						fetched[st.Addr] = true // msg, err := …: a local
					}
				}
			}
		}
	}
	if len(calls) == 0 {
		return nil, nil
	}
	for st, fa := range fieldStores(fn) {
		if !types.Identical(derefType(fa.X.Type()), own) {
			continue
		}
		switch v := peel(st.Val).(type) {
		case *ssa.Field:
			if fetched[v.X] {
				return calls, t
			}
		case *ssa.UnOp:
			if x, ok := v.X.(*ssa.FieldAddr); ok && v.Op == token.MUL && fetched[x.X] {
				return calls, t
			}
		}
		if copiedFrom(st.Val, fetched, 0) {
			return calls, t
		}
	}
	return nil, nil
}

// heldMessage returns the catalog's message a fetch's result holds in a
// slice field (SQS's ReceiveMessageOutput.Messages); nil when it holds
// none.
func (a *pkgAnalysis) heldMessage(t types.Type) *knowledge.Message {
	if t == nil {
		return nil
	}
	st, ok := derefType(t).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := 0; i < st.NumFields(); i++ {
		if sl, ok := st.Field(i).Type().Underlying().(*types.Slice); ok {
			if m := a.cat.Message(sl.Elem()); m != nil {
				return m
			}
		}
	}
	return nil
}

// copiedFrom reports whether v is a field of a fetched message, read
// through the result that holds it (out.Messages[i].Body) and through a
// call that converts it (aws.ToString(m.Body), string(m.Value)).
func copiedFrom(v ssa.Value, fetched map[ssa.Value]bool, depth int) bool {
	if v == nil || depth > 8 {
		return false
	}
	if fetched[v] {
		return depth > 0 // a field of it, not the fetched value itself
	}
	if x, ok := partOf(v); ok {
		return copiedFrom(x, fetched, depth+1)
	}
	switch x := v.(type) {
	case *ssa.Call:
		if x.Call.IsInvoke() || len(x.Call.Args) != 1 {
			return false
		}
		return copiedFrom(x.Call.Args[0], fetched, depth+1)
	case *ssa.Alloc:
		// A range variable: a local the loop stores each element into.
		return storedFrom(x, func(v ssa.Value) bool { return copiedFrom(v, fetched, depth+1) })
	}
	return false
}

// ownStruct returns t (or what it points to) when it is a named struct
// type of the program that the catalog does not know as a message.
func (a *pkgAnalysis) ownStruct(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || a.cat.Message(t) != nil || !a.ownPkgPath(n.Obj().Pkg().Path()) {
		return nil
	}
	if _, ok := n.Underlying().(*types.Struct); !ok {
		return nil
	}
	return n
}

// holderMessage returns the message type of a field of t (a struct type of
// the program, or a slice of, or a pointer to, one), nil when it holds
// none.
func (a *pkgAnalysis) holderMessage(t types.Type) *knowledge.Message {
	for range 2 {
		switch u := types.Unalias(t).(type) {
		case *types.Slice:
			t = u.Elem()
		case *types.Pointer:
			t = u.Elem()
		}
	}
	own := a.ownStruct(t)
	if own == nil {
		return nil
	}
	st := own.Underlying().(*types.Struct)
	for i := 0; i < st.NumFields(); i++ {
		if m := a.cat.Message(st.Field(i).Type()); m != nil {
			return m
		}
	}
	return nil
}

// ownPkgPath reports whether the package at path is one of the program's.
func (a *pkgAnalysis) ownPkgPath(path string) bool { return a.local(a.prog.ImportedPackage(path)) }

// fedValue returns the fetch calls feeding the channel v was received from
// (or v is), nil when it is none; phi follows one merge of such values.
func (a *pkgAnalysis) fedValue(v ssa.Value, phi bool) []ssa.CallInstruction {
	v = peel(v)
	if calls := a.fedCalls(v); len(calls) > 0 {
		return calls // the channel itself: ConsumeChan
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.ARROW {
			return a.fedCalls(x.X)
		}
	case *ssa.Extract:
		switch t := x.Tuple.(type) {
		case *ssa.UnOp: // m, ok := <-ch
			if t.Op == token.ARROW && x.Index == 0 {
				return a.fedCalls(t.X)
			}
		case *ssa.Select: // (index, recvOk, r0, r1, …): one r per receive
			n := x.Index - 2
			for _, st := range t.States {
				if st.Dir != types.RecvOnly {
					continue
				}
				if n == 0 {
					return a.fedCalls(st.Chan)
				}
				n--
			}
		}
	case *ssa.Phi:
		if phi {
			for _, e := range x.Edges {
				if calls := a.fedValue(e, false); len(calls) > 0 {
					return calls
				}
			}
		}
	}
	return nil
}

// commitsOnRead reports whether one of the fetch calls commits by itself.
func (a *pkgAnalysis) commitsOnRead(calls []ssa.CallInstruction) bool {
	for _, ci := range calls {
		for _, r := range a.cat.Lookup(callee(ci.Common())) {
			if r.Role != knowledge.AutoAckRead {
				continue
			}
			if recv, _ := splitArgs(ci.Common()); a.autoCommits(r.AutoCommit, recv) {
				return true
			}
		}
	}
	return false
}

// wrapperMessage returns the message entry for t, the type a wrapper
// returns (or a channel or a slice of it), learnt from the client's message the calls
// fetch; nil when t is catalogued already or no named type of a
// dependency outside the standard library.
func (a *pkgAnalysis) wrapperMessage(t types.Type, calls []ssa.CallInstruction) *knowledge.Message {
	if ch, ok := t.Underlying().(*types.Chan); ok {
		t = ch.Elem()
	}
	if sl, ok := types.Unalias(t).(*types.Slice); ok {
		t = sl.Elem() // a batch
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || stdPath(n.Obj().Pkg().Path()) || a.cat.Message(t) != nil {
		return nil
	}
	name := knowledge.QualifiedType(t)
	m := &knowledge.Message{Type: name, Client: "wrapper", Learned: true}
	for _, ci := range calls {
		if c, ok := ci.(*ssa.Call); ok && firstResult(c.Type()) != nil {
			cm := a.cat.Message(firstResult(c.Type()))
			if cm == nil {
				cm = a.heldMessage(firstResult(c.Type()))
			}
			if cm != nil {
				m.Client, m.Offsets = cm.Client, cm.Offsets
				break
			}
		}
	}
	return m
}

// firstResult returns the first component of a call's result type.
func firstResult(t types.Type) types.Type {
	if tu, ok := t.(*types.Tuple); ok {
		if tu.Len() == 0 {
			return nil
		}
		return tu.At(0).Type()
	}
	return t
}

// ruleName returns fn's qualified name as the catalog writes it
// ((pkg.Type).Method, pkg.Func), "" for a method of an unnamed type.
func ruleName(fn *types.Func) string {
	pkg, recv := knowledge.FuncKey(fn)
	switch recv {
	case "?":
		return ""
	case "":
		return pkg + "." + fn.Name()
	}
	return "(" + pkg + "." + recv + ")." + fn.Name()
}
