package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemkit/idem/spec"
)

// stubFile renders <consumer>_apply.go: the apply function, for the user to
// fill in. It carries no "Code generated" header: once written, it is the
// user's file.
func (g *consumerGen) stubFile() ([]byte, error) {
	f := g.newFile()
	name := "apply" + g.t
	todo := "TODO: apply the effect of m through tx."
	switch g.c.Effect {
	case spec.EffectRedis:
		todo = "TODO: queue the effect of m on pipe."
	case spec.EffectExternal:
		todo = "TODO: call the provider, with lease.Key() as its idempotency key."
	}
	fileDoc(f, fmt.Sprintf("%s\n\nWire it up with\n\n\th := New%sHandler(store, %s)\n\nidemgen wrote this file once and never overwrites it: it is yours to edit. (If it is deleted, idemgen writes the stub again; keep the file, even empty, if the function lives elsewhere.)",
		g.applyContract(name), g.t, name))
	f.Func().Id(name).Params(g.applyParams()...).Error().Block(
		jen.Comment(todo),
		jen.Return(jen.Qual("errors", "New").Call(jen.Lit(g.c.Name+": apply not implemented"))),
	)
	f.Line()
	f.Comment(fmt.Sprintf("The handler's apply func type checks the signature of %s.", name))
	f.Var().Id("_").Id(g.t + "Func").Op("=").Id(name)
	return render(f)
}
