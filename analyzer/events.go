package analyzer

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// Event functions: a serverless platform calls an exported function of the
// program by the name it was deployed under, with the event decoded into a
// struct of the program's,
//
//	type PubSubMessage struct {
//		Data []byte `json:"data"`
//	}
//
//	func OrderPubSub(ctx context.Context, m PubSubMessage) error { … }
//
// Nothing in the code registers it. A struct of a catalogued event shape
// (EventShapes) that is the second parameter of an exported function of
// (context.Context, T) error is a message of the shape's client: the
// function is a handler, acked by returning nil. Pub/Sub delivers at
// least once, so its effects are judged as any handler's.

// eventMessages returns the messages of the program's event functions
// (whole-program mode, with the wrappers, before any function is
// summarised).
func (a *pkgAnalysis) eventMessages() []knowledge.Message {
	shapes := a.cat.EventShapes()
	if len(shapes) == 0 {
		return nil
	}
	var out []knowledge.Message
	seen := map[string]bool{}
	for _, fn := range a.funcs {
		if fn.Parent() != nil || fn.Signature.Recv() != nil || !ast.IsExported(fn.Name()) {
			continue
		}
		sig := fn.Signature
		if sig.Params().Len() != 2 || !isContext(sig.Params().At(0).Type()) ||
			sig.Results().Len() != 1 || !isError(sig.Results().At(0).Type()) {
			continue
		}
		t := derefType(sig.Params().At(1).Type())
		sh := eventShape(t, shapes)
		if sh == nil {
			continue
		}
		name := knowledge.QualifiedType(t)
		if name == "" || seen[name] || a.cat.Message(t) != nil {
			continue
		}
		seen[name] = true
		out = append(out, knowledge.Message{Type: name, Client: sh.Client, ReturnAck: true, Learned: true})
	}
	return out
}

// eventShape returns the shape t, a struct of the program, has: its name
// and its []byte payload field; nil when none.
func eventShape(t types.Type, shapes []knowledge.EventShape) *knowledge.EventShape {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := range shapes {
		sh := &shapes[i]
		if !strings.EqualFold(n.Obj().Name(), sh.Name) {
			continue
		}
		for j := 0; j < st.NumFields(); j++ {
			f := st.Field(j)
			if sl, ok := f.Type().Underlying().(*types.Slice); ok && f.Name() == sh.Field {
				if b, ok := sl.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
					return sh
				}
			}
		}
	}
	return nil
}
