package generator

import (
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/idemkit/idem/spec"
)

// The package-wide API every spec's package gets, next to the files of its
// consumers.
const (
	effectsName  = "Effects"  // the interface: one method per consumer's effect
	storesName   = "Stores"   // the stores NewHandlers builds the handlers on
	handlersName = "Handlers" // every handler of the spec, built by NewHandlers
	serviceName  = "Service"  // the user's implementation of Effects (a stub)

	// HandlersFile is the generated file of the package-wide API, in the
	// spec's output folder: Effects, Stores, Handlers, NewHandlers and
	// Handlers.Topics.
	HandlersFile = "handlers_idem.go"
	// ServiceFile is the stub of Service, the user's implementation of
	// Effects, in the spec's output folder; each consumer's method is in its
	// own stub, <consumer>_apply.go.
	ServiceFile = "service_apply.go"
)

// packageGen renders the package-wide files of a spec.
type packageGen struct {
	s    *spec.Spec
	pkg  string // import path of the generated package; "" if unknown
	gens []*consumerGen
}

func newPackageGen(s *spec.Spec, pkgPath string) *packageGen {
	p := &packageGen{s: s, pkg: pkgPath}
	for i := range s.Consumers {
		p.gens = append(p.gens, newConsumerGen(s, i, pkgPath))
	}
	return p
}

// files renders handlers_idem.go and, unless stubExists reports it, the
// service stub (returned with nil Data when it exists).
func (p *packageGen) files(stubExists func(string) bool) ([]File, error) {
	handlers, err := p.handlersFile()
	if err != nil {
		return nil, fmt.Errorf("generator: %s: %w", HandlersFile, err)
	}
	dir := path.Clean(p.s.Output)
	stubPath := path.Join(dir, ServiceFile)
	var stub []byte
	if stubExists == nil || !stubExists(stubPath) {
		if stub, err = p.serviceFile(); err != nil {
			return nil, fmt.Errorf("generator: %s: %w", ServiceFile, err)
		}
	}
	return []File{
		{Path: path.Join(dir, HandlersFile), Data: handlers, Mode: ModeGenerated},
		{Path: stubPath, Data: stub, Mode: ModeStub},
	}, nil
}

func (p *packageGen) newFile() *jen.File {
	var foreign []*spec.GoType
	for _, g := range p.gens {
		foreign = append(foreign, g.foreign)
	}
	return newPackageFile(p.s, p.pkg, foreign...)
}

// storeKinds returns the kinds of store the spec's consumers need, sql
// first, with the names of the consumers of each.
func (p *packageGen) storeKinds() (kinds []string, consumers map[string][]string) {
	consumers = map[string][]string{}
	for _, g := range p.gens {
		consumers[g.storeKind()] = append(consumers[g.storeKind()], g.c.Name)
	}
	for _, k := range []string{spec.StoreSQL, spec.StoreRedis} {
		if len(consumers[k]) > 0 {
			kinds = append(kinds, k)
		}
	}
	return kinds, consumers
}

// storeField is the field of Stores holding the store of kind.
func storeField(kind string) string {
	if kind == spec.StoreRedis {
		return "Redis"
	}
	return "SQL"
}

// storesExample is a Stores literal as a caller writes it.
func (p *packageGen) storesExample() string {
	kinds, _ := p.storeKinds()
	if len(kinds) == 1 {
		return fmt.Sprintf("%s{%s: store}", storesName, storeField(kinds[0]))
	}
	return fmt.Sprintf("%s{SQL: sqlStore, Redis: redisStore}", storesName)
}

// topics returns the topics of the spec in the order they first appear,
// with the consumers reading each, and the consumers without a topic.
func (p *packageGen) topics() (order []string, readers map[string][]*consumerGen, none []string) {
	readers = map[string][]*consumerGen{}
	for _, g := range p.gens {
		if g.c.Topic == "" {
			none = append(none, g.c.Name)
			continue
		}
		if readers[g.c.Topic] == nil {
			order = append(order, g.c.Topic)
		}
		readers[g.c.Topic] = append(readers[g.c.Topic], g)
	}
	return order, readers, none
}

// handlersFile renders handlers_idem.go.
func (p *packageGen) handlersFile() ([]byte, error) {
	f := p.newFile()
	f.HeaderComment(generatedHeader)
	p.effects(f)
	p.stores(f)
	p.handlers(f)
	p.constructor(f)
	shared := p.topicTable(f)
	if shared {
		p.fanOut(f)
	}
	return render(f)
}

func (p *packageGen) effects(f *jen.File) {
	fileDoc(f, fmt.Sprintf("%s performs the effect of each consumer of the spec: one method per consumer, with the signature of its <Name>Func. New%s builds every handler from an implementation. idemgen wrote a stub of one, %s (%s), whose method for each consumer is in the consumer's <consumer>_apply.go: fill those in.",
		effectsName, handlersName, serviceName, ServiceFile))
	var methods []jen.Code
	for _, g := range p.gens {
		doc(func(c jen.Code) { methods = append(methods, c) }, g.applyContract(g.t))
		methods = append(methods, jen.Id(g.t).Params(g.applyParams()...).Error())
	}
	f.Type().Id(effectsName).Interface(methods...)
	f.Line()
}

func (p *packageGen) stores(f *jen.File) {
	kinds, consumers := p.storeKinds()
	fileDoc(f, fmt.Sprintf("%s are the stores of the dedup records that New%s builds the handlers on.", storesName, handlersName))
	var fields []jen.Code
	for _, k := range kinds {
		add := func(c jen.Code) { fields = append(fields, c) }
		switch {
		case k == spec.StoreRedis:
			doc(add, fmt.Sprintf("Redis keeps the dedup records of %s (redisguard.New).", list(consumers[k])))
			fields = append(fields, jen.Id("Redis").Op("*").Qual(redisguardPkg, "Store"))
		case p.s.SQLPackage == spec.SQLPackagePgx:
			doc(add, fmt.Sprintf("SQL keeps the dedup records of %s (pgxguard.New), on the database their SQL effects change: a record and its effect share one transaction.", list(consumers[k])))
			fields = append(fields, jen.Id("SQL").Op("*").Qual(pgxguardPkg, "Store"))
		default:
			doc(add, fmt.Sprintf("SQL keeps the dedup records of %s (guard.NewSQLStore), on the database their SQL effects change: a record and its effect share one transaction.", list(consumers[k])))
			fields = append(fields, jen.Id("SQL").Op("*").Qual(guardPkg, "SQLStore"))
		}
	}
	f.Type().Id(storesName).Struct(fields...)
	f.Line()
}

func (p *packageGen) handlers(f *jen.File) {
	fileDoc(f, fmt.Sprintf("%s are the guarded handlers of the spec's consumers, one field per consumer, each a guard.Handler. New%s builds them; %s.%s returns them by topic. To give one consumer options of its own, replace its field with what its New<Name>Handler returns.",
		handlersName, handlersName, handlersName, topicsMethod))
	var fields []jen.Code
	for _, g := range p.gens {
		doc(func(c jen.Code) { fields = append(fields, c) }, fmt.Sprintf("%s handles %s messages%s.", g.t, g.c.Name, g.topicText()))
		fields = append(fields, jen.Id(g.t).Op("*").Id(g.t+"Handler"))
	}
	f.Type().Id(handlersName).Struct(fields...)
	f.Line()
}

func (p *packageGen) constructor(f *jen.File) {
	name := "New" + handlersName
	first := p.gens[0]
	fileDoc(f, fmt.Sprintf("%s returns the handler of every consumer of the spec, each built by its New<Name>Handler from the store of its kind in stores, the method of effects of its name and opts: %s is New%sHandler(stores.%s, effects.%s, opts...). The spec's settings of each consumer are layered under opts, so opts win.\n\nA nil effects, or a nil store the spec needs, does not fail here: every Handle and HandleMessage of the handlers concerned returns the error.",
		name, first.t, first.t, storeField(first.storeKind()), first.t))
	var missing, built []jen.Code
	for _, g := range p.gens {
		missing = append(missing, jen.Id(g.t).Op(":").Op("&").Id(g.t+"Handler").Values(jen.Dict{jen.Id("err"): jen.Err()}))
		built = append(built, jen.Id(g.t).Op(":").Id("New"+g.t+"Handler").Call(
			jen.Id("stores").Dot(storeField(g.storeKind())),
			jen.Id("effects").Dot(g.t),
			jen.Id("opts").Op("..."),
		))
	}
	f.Func().Id(name).Params(
		jen.Id("stores").Id(storesName),
		jen.Id("effects").Id(effectsName),
		jen.Id("opts").Op("...").Qual(guardPkg, "Option"),
	).Op("*").Id(handlersName).Block(
		jen.If(jen.Id("effects").Op("==").Nil()).Block(
			jen.Err().Op(":=").Qual("errors", "New").Call(jen.Lit(p.s.Package+": "+name+": nil effects")),
			jen.Return(jen.Op("&").Id(handlersName).Add(literal(missing))),
		),
		jen.Return(jen.Op("&").Id(handlersName).Add(literal(built))),
	)
	f.Line()
}

// topicTable declares Handlers.Topics and reports whether a topic has
// several consumers (and so needs fanOut).
func (p *packageGen) topicTable(f *jen.File) bool {
	order, readers, none := p.topics()
	shared := false
	var items []jen.Code
	for _, topic := range order {
		rs := readers[topic]
		value := jen.Id("h").Dot(rs[0].t)
		if len(rs) > 1 {
			shared = true
			var hs []jen.Code
			for _, g := range rs {
				hs = append(hs, jen.Id("h").Dot(g.t))
			}
			value = jen.Id("fanOut").Values(hs...)
		}
		items = append(items, jen.Id(rs[0].t+"Topic").Op(":").Add(value))
	}
	text := fmt.Sprintf("%s returns the handlers by topic, for a broker adapter (jetstreamguard.Consume, amqpguard, …): each consumer's topic, as the spec names it, maps to its handler, and a topic several consumers read maps to one handler that runs each of them in turn (fanOut).", topicsMethod)
	if len(none) > 0 {
		text += fmt.Sprintf(" Consumers without a topic are not in it: %s.", list(none))
	}
	fileDoc(f, text)
	f.Func().Params(jen.Id("h").Op("*").Id(handlersName)).Id(topicsMethod).Params().Map(jen.String()).Qual(guardPkg, "Handler").Block(
		jen.Return(jen.Map(jen.String()).Qual(guardPkg, "Handler").Add(literal(items))),
	)
	f.Line()
	return shared
}

// fanOut declares the handler of a topic several consumers read.
func (p *packageGen) fanOut(f *jen.File) {
	fileDoc(f, "fanOut is the handler of a topic several consumers read: it hands each message to every one of their handlers, in the spec's order, and answers for all of them. Every handler runs, whatever the others answer. The answer is guard.Applied when an effect ran now and guard.Duplicate when all ran before; with errors, it is the one that decides the message's fate: a transient error first (the message comes back, and the handlers done answer guard.Duplicate then), else the *guard.InProgressError with the longest wait, else the first permanent error (guard.Permanent), which dead-letters the message.")
	f.Type().Id("fanOut").Index().Qual(guardPkg, "Handler")
	f.Line()
	fileDoc(f, "Handle runs every handler of hs on body.")
	f.Func().Params(jen.Id("hs").Id("fanOut")).Id("Handle").Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("body").Index().Byte(),
	).Params(jen.Qual(guardPkg, "Outcome"), jen.Error()).Block(
		jen.Id("out").Op(":=").Qual(guardPkg, "Duplicate"),
		jen.Var().Defs(
			jen.List(jen.Id("transient"), jen.Id("permanent")).Error(),
			jen.Id("wait").Op("*").Qual(guardPkg, "InProgressError"),
		),
		jen.For(jen.List(jen.Id("_"), jen.Id("h")).Op(":=").Range().Id("hs")).Block(
			jen.List(jen.Id("o"), jen.Err()).Op(":=").Id("h").Dot("Handle").Call(jen.Id("ctx"), jen.Id("body")),
			jen.Var().Id("ip").Op("*").Qual(guardPkg, "InProgressError"),
			jen.Switch().Block(
				jen.Case(jen.Err().Op("==").Nil()).Block(
					jen.If(jen.Id("o").Op("==").Qual(guardPkg, "Applied")).Block(jen.Id("out").Op("=").Qual(guardPkg, "Applied")),
				),
				jen.Case(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("ip"))).Block(
					jen.If(jen.Id("wait").Op("==").Nil().Op("||").Id("ip").Dot("RetryAfter").Op(">").Id("wait").Dot("RetryAfter")).Block(
						jen.Id("wait").Op("=").Id("ip"),
					),
				),
				jen.Case(jen.Qual(guardPkg, "Permanent").Call(jen.Err())).Block(
					jen.If(jen.Id("permanent").Op("==").Nil()).Block(jen.Id("permanent").Op("=").Err()),
				),
				jen.Case(jen.Id("transient").Op("==").Nil()).Block(
					jen.Id("transient").Op("=").Err(),
				),
			),
		),
		jen.Switch().Block(
			jen.Case(jen.Id("transient").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("transient"))),
			jen.Case(jen.Id("wait").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("wait"))),
			jen.Case(jen.Id("permanent").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("permanent"))),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
}

// serviceFile renders the stub of Service. Like every stub it carries no
// "Code generated" header: once written, it is the user's file.
func (p *packageGen) serviceFile() ([]byte, error) {
	f := p.newFile()
	fileDoc(f, fmt.Sprintf("%s performs the effects of the spec's consumers: it implements %s (%s) with one method per consumer, each in the consumer's <consumer>_apply.go. Give it the fields its effects need (a repository, an SMS client, a clock), and build every handler with\n\n\th := New%s(%s, &%s{})\n\nthen hand h.%s() (or h.%s, …) to a broker adapter.\n\nidemgen wrote this file once and never overwrites it: it is yours to edit. Keep the type's name: the stub of a consumer added to the spec is a method of %s. (If the file is deleted, idemgen writes it again; keep it, even reduced to its package clause, if %s lives elsewhere.)",
		serviceName, effectsName, HandlersFile, handlersName, p.storesExample(), serviceName, topicsMethod, p.gens[0].t, serviceName, serviceName))
	f.Type().Id(serviceName).Struct()
	return render(f)
}

// literal is the body of a composite literal with items (key: value) one per
// line, in their order, as the spec has them: a jen.Dict would sort them.
func literal(items []jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}
