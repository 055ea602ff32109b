package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemkit/idem/spec"
)

// stubFile renders <consumer>_apply.go: the consumer's method of Service,
// the effect for the user to fill in. It carries no "Code generated" header:
// once written, it is the user's file.
func (g *consumerGen) stubFile() ([]byte, error) {
	f := g.newFile()
	todo := "TODO: apply the effect of m through tx."
	fail := jen.Qual("errors", "New").Call(jen.Lit(g.c.Name + ": effect not implemented"))
	switch g.c.Effect {
	case spec.EffectRedis:
		todo = "TODO: queue the effect of m on pipe."
	case spec.EffectExternal:
		todo = "TODO: call the provider, with lease.Key() as its idempotency key."
		// Nothing was called: under at-most-once the key is released, not
		// made uncertain.
		fail = jen.Qual(guardPkg, "NotPerformed").Call(fail)
	}
	fileDoc(f, fmt.Sprintf("%s\n\nidemgen wrote this file once and never overwrites it: it is yours to edit. (If it is deleted, idemgen writes the stub again; keep the file, even reduced to its package clause, if the method lives elsewhere.)",
		g.applyContract(g.t)))
	f.Func().Params(jen.Id("s").Op("*").Id(serviceName)).Id(g.t).Params(g.applyParams()...).Error().Block(
		jen.Comment(todo),
		jen.Return(fail),
	)
	return render(f)
}
