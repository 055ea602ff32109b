package generator

import (
	"fmt"
	"go/token"
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemkit/idem/spec"
)

// handlerFile renders <consumer>_idem.go.
func (g *consumerGen) handlerFile() ([]byte, error) {
	f := g.newFile()
	f.HeaderComment(generatedHeader)

	f.Comment("A compile-time check that the guard runtime supports this generated code.")
	f.Const().Id("_").Op("=").Qual(guardPkg, "SupportPackageIsVersion1")
	f.Line()
	g.constants(f)
	if g.foreign == nil {
		g.message(f)
	}
	g.key(f)
	g.fingerprint(f)
	g.funcType(f)
	g.handlerType(f)
	g.constructor(f)
	g.handle(f)
	g.handleMessage(f)
	return render(f)
}

// topicText names the consumer's topic in comments: " (topic t)".
func (g *consumerGen) topicText() string {
	if g.c.Topic == "" {
		return ""
	}
	return " (topic " + text(g.c.Topic) + ")"
}

func (g *consumerGen) constants(f *jen.File) {
	var defs []jen.Code
	add := func(c jen.Code) { defs = append(defs, c) }
	if g.c.KeyVersion > 1 {
		doc(add, fmt.Sprintf("%sConsumer is the namespace of the dedup records of the %s consumer: its name, and @v%d for key_version %d.", g.t, g.c.Name, g.c.KeyVersion, g.c.KeyVersion))
	} else {
		doc(add, fmt.Sprintf("%sConsumer is the name of the %s consumer: the namespace of its dedup records.", g.t, g.c.Name))
	}
	add(jen.Id(g.t + "Consumer").Op("=").Lit(g.c.Namespace()))
	doc(add, fmt.Sprintf("%sKeyIdentity is the key identity of the %s consumer (spec.KeyIdentity): its namespace, key fields with their types, key encoding and fingerprint fields. The handler declares it to the store (guard.WithKeyIdentity). Under another identity, messages handled before would count as new, so idemgen refuses to regenerate this file with one: to change the key, raise key_version in the spec, which starts a new namespace.", g.t, g.c.Name))
	add(jen.Id(g.t + "KeyIdentity").Op("=").Lit(g.c.KeyIdentity().String()))
	if g.c.Topic != "" {
		doc(add, fmt.Sprintf("%sTopic is the topic the %s consumer reads, as the spec names it.", g.t, g.c.Name))
		add(jen.Id(g.t + "Topic").Op("=").Lit(g.c.Topic))
	}
	f.Const().Defs(defs...)
	f.Line()
}

// roles describes what each message field is used for.
func (g *consumerGen) role(name string) string {
	var roles []string
	for _, k := range g.c.Key {
		if k == name {
			roles = append(roles, "key")
		}
	}
	for _, k := range g.c.Fingerprint {
		if k == name {
			roles = append(roles, "fingerprint")
		}
	}
	if g.c.HashTag == name {
		roles = append(roles, "hash tag")
	}
	if len(roles) == 0 {
		return "neither key nor fingerprint"
	}
	return list(roles)
}

// message declares the message struct.
func (g *consumerGen) message(f *jen.File) {
	var fields []jen.Code
	for _, fl := range g.c.Message.Fields {
		fields = append(fields, jen.Id(fl.GoName).Add(goType(fl.Type)).Tag(map[string]string{"json": fl.Name}).Comment(g.role(fl.Name)))
	}
	fp := "it has no fingerprint, so duplicates are not compared."
	if len(g.c.Fingerprint) > 0 {
		fp = fmt.Sprintf("a duplicate must agree with it on %s (the fingerprint).", list(g.c.Fingerprint))
	}
	fileDoc(f, fmt.Sprintf("%s is the message of the %s consumer%s, a JSON object. Its business key is %s; %s",
		g.t, g.c.Name, g.topicText(), list(g.c.Key), fp))
	f.Type().Id(g.t).Struct(fields...)
	f.Line()
}

// key declares the IdempotencyKey method, or for a message.type the key
// function.
func (g *consumerGen) key(f *jen.File) {
	fail := []jen.Code{jen.Lit("")}
	var body []jen.Code
	var empty []string
	seen := map[string]bool{}
	for _, name := range g.c.Key {
		fl := g.field(name)
		switch fl.Type {
		case spec.TypeString:
			body = append(body, jen.If(g.sel("m", fl).Op("==").Lit("")).Block(
				g.invalid(fail, "key field "+verbatim(name)+" is empty")))
			if !seen[fl.Type] {
				empty = append(empty, "an empty string")
			}
		case spec.TypeTime:
			body = append(body, jen.If(g.sel("m", fl).Dot("IsZero").Call()).Block(
				g.invalid(fail, "key field "+verbatim(name)+" is the zero time")))
			if !seen[fl.Type] {
				empty = append(empty, "the zero time")
			}
		case spec.TypeUUID:
			body = append(body, jen.If(
				jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(guardPkg, "CanonicalUUID").Call(g.sel("m", fl)),
				jen.Err().Op("!=").Nil(),
			).Block(g.invalid(fail, "key field "+verbatim(name)+": %w", jen.Err())))
			if !seen[fl.Type] {
				empty = append(empty, "a value that is not a UUID (8-4-4-4-12 hex digits) or is the zero UUID")
			}
		}
		seen[fl.Type] = true
	}
	body = append(body, jen.Var().Id("k").Qual(guardPkg, "KeyBuilder"))
	for _, name := range g.c.Key {
		body = append(body, g.builderCall("k", g.field(name), "m", nil))
	}
	body = append(body, jen.Return(jen.Id("k").Dot("Key").Call(), jen.Nil()))

	what := fmt.Sprintf("the business key of m (%s) in the v1 key encoding of guard.KeyBuilder.", list(g.c.Key))
	check := " Every value of these fields is a valid key."
	if len(empty) > 0 {
		check = fmt.Sprintf(" A key field holding %s is guard.ErrInvalidMessage.", listOr(empty))
	}
	sig := jen.Params(jen.String(), jen.Error())
	if g.foreign == nil {
		fileDoc(f, "IdempotencyKey returns "+what+check)
		f.Func().Params(jen.Id("m").Op("*").Id(g.t)).Id("IdempotencyKey").Params().Add(sig).Block(body...)
	} else {
		fileDoc(f, fmt.Sprintf("%sKey returns %s%s It is a function because methods cannot be declared on %s.",
			g.lower, what, check, g.msgTypeText()))
		f.Func().Id(g.lower + "Key").Params(jen.Id("m").Op("*").Add(g.msgType())).Add(sig).Block(body...)
	}
	f.Line()
}

// fingerprint declares the Fingerprint method, or for a message.type the
// fingerprint function.
func (g *consumerGen) fingerprint(f *jen.File) {
	var body []jen.Code
	var what string
	if len(g.c.Fingerprint) == 0 {
		body = append(body, jen.Return(jen.Nil()))
		what = "nil: the spec lists no fingerprint fields, so a duplicate is never a key conflict."
	} else {
		body = append(body, jen.Var().Id("f").Qual(guardPkg, "FingerprintBuilder"))
		for _, name := range g.c.Fingerprint {
			body = append(body, g.builderCall("f", g.field(name), "m", jen.Lit(name)))
		}
		body = append(body, jen.Return(jen.Id("f").Dot("Sum").Call()))
		what = fmt.Sprintf("the fingerprint of m over %s (guard.FingerprintBuilder): a duplicate with another fingerprint is guard.ErrKeyConflict.", list(g.c.Fingerprint))
	}
	if g.foreign == nil {
		fileDoc(f, "Fingerprint returns "+what)
		f.Func().Params(jen.Id("m").Op("*").Id(g.t)).Id("Fingerprint").Params().Index().Byte().Block(body...)
	} else {
		fileDoc(f, fmt.Sprintf("%sFingerprint returns %s", g.lower, what))
		f.Func().Id(g.lower + "Fingerprint").Params(jen.Id("m").Op("*").Add(g.msgType())).Index().Byte().Block(body...)
	}
	f.Line()
}

// callKey and callFingerprint compute the key and fingerprint of m.
func (g *consumerGen) callKey() *jen.Statement {
	if g.foreign == nil {
		return jen.Id("m").Dot("IdempotencyKey").Call()
	}
	return jen.Id(g.lower + "Key").Call(jen.Id("m"))
}

func (g *consumerGen) callFingerprint() *jen.Statement {
	if g.foreign == nil {
		return jen.Id("m").Dot("Fingerprint").Call()
	}
	return jen.Id(g.lower + "Fingerprint").Call(jen.Id("m"))
}

// storeKind is where the consumer's records live: "sql" or "redis".
func (g *consumerGen) storeKind() string {
	switch g.c.Effect {
	case spec.EffectRedis:
		return spec.StoreRedis
	case spec.EffectExternal:
		return g.c.Store
	}
	return spec.StoreSQL
}

// storeType is the type of the handler's store.
func (g *consumerGen) storeType() *jen.Statement {
	switch {
	case g.storeKind() == spec.StoreRedis:
		return jen.Op("*").Qual(redisguardPkg, "Store")
	case g.s.SQLPackage == spec.SQLPackagePgx:
		return jen.Op("*").Qual(pgxguardPkg, "Store")
	}
	return jen.Op("*").Qual(guardPkg, "SQLStore")
}

// effectParam is the apply function's second parameter: name and type.
func (g *consumerGen) effectParam() (string, *jen.Statement) {
	switch g.c.Effect {
	case spec.EffectRedis:
		return "pipe", jen.Qual(redisPkg, "Pipeliner")
	case spec.EffectExternal:
		return "lease", jen.Op("*").Qual(guardPkg, "Lease")
	}
	if g.s.SQLPackage == spec.SQLPackagePgx {
		return "tx", jen.Qual(pgxPkg, "Tx")
	}
	return "tx", jen.Op("*").Qual("database/sql", "Tx")
}

// applyParams are the parameters of the apply function.
func (g *consumerGen) applyParams() []jen.Code {
	name, typ := g.effectParam()
	return []jen.Code{
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id(name).Add(typ),
		jen.Id("m").Op("*").Add(g.msgType()),
	}
}

// applyContract documents what an apply function must do, in the words of
// its effect kind; subject is how the sentence names it.
func (g *consumerGen) applyContract(subject string) string {
	switch g.c.Effect {
	case spec.EffectRedis:
		s := fmt.Sprintf("%s queues the effect of m, a message of the %s consumer, on pipe, the transaction that also writes its dedup record: Redis runs both in one MULTI/EXEC, or neither. It must only queue commands, never run them, and may be called again when a concurrent duplicate makes the store retry; an error sends nothing. Returning guard.Reject(err) refuses the message for good.", subject, g.c.Name)
		if g.c.HashTag != "" {
			s += fmt.Sprintf(" The record lives under the hash tag of the message's %s field: name every key with redisguard.Tagged(<%s>, key), so that it is in the record's Redis Cluster slot.", g.c.HashTag, g.c.HashTag)
		}
		return s
	case spec.EffectExternal:
		s := fmt.Sprintf("%s performs the external effect of m, a message of the %s consumer, while holding lease, which blocks duplicates for %s. Pass lease.Key() to the provider as its idempotency key, call lease.Extend for calls that may outlast the lease, and lease.SetResult to store a result for later duplicates.", subject, g.c.Name, fmtDuration(g.c.Lease))
		if g.c.Delivery == spec.DeliveryAtMostOnce {
			s += " Delivery is at-most-once: a lease that expires before it returns makes the key uncertain (guard.ErrUncertain), so the effect never runs twice."
		} else {
			s += " Delivery is at-least-once: a lease that expires before it returns is taken over by a redelivery, which runs the effect again with the same lease.Key()."
		}
		switch {
		case g.c.OnError == spec.OnErrorKeep:
			s += " Any error keeps the key failed (on_error: keep): redeliveries get guard.ErrFailed."
		case g.c.Delivery == spec.DeliveryAtMostOnce:
			s += " An error wrapped with guard.NotPerformed (the call certainly did not happen) releases the key for a redelivery; any other error makes it uncertain, since the call may have reached the provider; guard.Reject(err) keeps it failed."
		default:
			s += " An error releases the key, so a redelivery runs the effect again; guard.Reject(err) keeps it failed instead."
		}
		return s
	}
	return fmt.Sprintf("%s applies the effect of m, a message of the %s consumer, in tx, the transaction that also records its dedup row, so both commit or neither. It must do all its work through tx: the store retries the transaction after serialization failures and deadlocks, calling it again. Returning guard.Reject(err) refuses the message for good.", subject, g.c.Name)
}

func (g *consumerGen) funcType(f *jen.File) {
	fileDoc(f, g.applyContract(g.t+"Func"))
	f.Type().Id(g.t + "Func").Func().Params(g.applyParams()...).Error()
	f.Line()
}

func (g *consumerGen) handlerType(f *jen.File) {
	how := "runs its effect in the same SQL transaction as the dedup record"
	switch g.c.Effect {
	case spec.EffectRedis:
		how = "queues its effect in the same Redis MULTI/EXEC as the dedup record"
	case spec.EffectExternal:
		how = "runs its external effect under a lease on the key"
	}
	fileDoc(f, fmt.Sprintf("%sHandler handles %s messages: it claims each message's key, %s, and answers guard.Duplicate for a key done before. Create it with New%sHandler, or with the other consumers' handlers with New%s; it is safe for concurrent use.",
		g.t, g.c.Name, how, g.t, handlersName))
	f.Type().Id(g.t+"Handler").Struct(
		jen.Id("store").Add(g.storeType()).Comment("with the spec's options applied"),
		jen.Id("err").Error().Comment("why the handler cannot work, returned by every call"),
		jen.Id("apply").Id(g.t+"Func"),
	)
	f.Line()
}

// options are the spec's settings of the consumer as guard options, with
// their documentation.
func (g *consumerGen) options() ([]jen.Code, []string) {
	retention := g.c.Retention
	if retention == 0 {
		retention = g.s.Retention
	}
	opts := []jen.Code{
		jen.Qual(guardPkg, "WithTable").Call(jen.Lit(g.s.Table)),
		jen.Qual(guardPkg, "WithRetention").Call(durationExpr(retention)),
		jen.Qual(guardPkg, "WithKeyIdentity").Call(jen.Id(g.t + "KeyIdentity")),
	}
	texts := []string{"table " + g.s.Table, "retention " + fmtDuration(retention), "key identity " + g.t + "KeyIdentity"}
	if g.c.Effect == spec.EffectExternal {
		delivery, onError := "AtLeastOnce", "Release"
		if g.c.Delivery == spec.DeliveryAtMostOnce {
			delivery = "AtMostOnce"
		}
		if g.c.OnError == spec.OnErrorKeep {
			onError = "Keep"
		}
		opts = append(opts,
			jen.Qual(guardPkg, "WithLease").Call(durationExpr(g.c.Lease)),
			jen.Qual(guardPkg, "WithDelivery").Call(jen.Qual(guardPkg, delivery)),
			jen.Qual(guardPkg, "WithOnError").Call(jen.Qual(guardPkg, onError)),
		)
		texts = append(texts, "lease "+fmtDuration(g.c.Lease), "delivery "+g.c.Delivery, "on_error "+g.c.OnError)
	}
	return opts, texts
}

func (g *consumerGen) constructor(f *jen.File) {
	name := "New" + g.t + "Handler"
	opts, texts := g.options()
	fileDoc(f, fmt.Sprintf("%s returns a handler that runs apply (a func, or the method %s of an %s, such as %s) and keeps its dedup records in store. The spec's settings (%s) become options layered under opts, so opts win.\n\nA nil store or apply, or options that store.With rejects, do not fail here: every Handle and HandleMessage of the handler returns the error.",
		name, g.t, effectsName, serviceName, list(texts)))
	f.Func().Id(name).Params(
		jen.Id("store").Add(g.storeType()),
		jen.Id("apply").Id(g.t+"Func"),
		jen.Id("opts").Op("...").Qual(guardPkg, "Option"),
	).Op("*").Id(g.t+"Handler").Block(
		jen.Id("h").Op(":=").Op("&").Id(g.t+"Handler").Values(jen.Dict{jen.Id("apply"): jen.Id("apply")}),
		jen.Switch().Block(
			jen.Case(jen.Id("store").Op("==").Nil()).Block(
				jen.Id("h").Dot("err").Op("=").Qual("errors", "New").Call(jen.Lit(g.c.Name+": "+name+": nil store")),
			),
			jen.Case(jen.Id("apply").Op("==").Nil()).Block(
				jen.Id("h").Dot("err").Op("=").Qual("errors", "New").Call(jen.Lit(g.c.Name+": "+name+": nil apply func")),
			),
			jen.Default().Block(
				jen.Var().Err().Error(),
				jen.If(
					jen.List(jen.Id("h").Dot("store"), jen.Err()).Op("=").Id("store").Dot("With").Call(
						jen.Append(
							jen.Index().Qual(guardPkg, "Option").Add(literal(opts)),
							jen.Id("opts").Op("..."),
						).Op("..."),
					),
					jen.Err().Op("!=").Nil(),
				).Block(
					jen.Id("h").Dot("err").Op("=").Qual("fmt", "Errorf").Call(jen.Lit(verbatim(g.c.Name)+": "+name+": %w"), jen.Err()),
				),
			),
		),
		jen.Return(jen.Id("h")),
	)
	f.Line()
}

// required are the fields whose presence decoding checks: the key fields
// and the hash_tag field, in that order.
func (g *consumerGen) required() []spec.Field {
	var fields []spec.Field
	seen := map[string]bool{}
	for _, name := range append(append([]string(nil), g.c.Key...), g.c.HashTag) {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		fields = append(fields, g.field(name))
	}
	return fields
}

// requiredText names a required field in errors.
func (g *consumerGen) requiredText(name string) string {
	for _, k := range g.c.Key {
		if k == name {
			return "key field " + name
		}
	}
	return "hash_tag field " + name
}

func (g *consumerGen) handle(f *jen.File) {
	fail := []jen.Code{jen.Lit(0)}
	body := []jen.Code{
		jen.If(jen.Id("h").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("h").Dot("err"))),
	}
	decodeErr := func(target jen.Code) *jen.Statement {
		return jen.If(
			jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("body"), target),
			jen.Err().Op("!=").Nil(),
		).Block(g.invalid(fail, "%w", jen.Err()))
	}
	required := g.required()
	if g.foreign == nil {
		// One decoding into a struct whose required fields are pointers: nil
		// means absent (or null).
		isRequired := map[string]bool{}
		for _, fl := range required {
			isRequired[fl.Name] = true
		}
		var wire []jen.Code
		values := jen.Dict{}
		for _, fl := range g.c.Message.Fields {
			typ := goType(fl.Type)
			val := jen.Id("w").Dot(fl.GoName)
			if isRequired[fl.Name] {
				typ = jen.Op("*").Add(typ)
				val = jen.Op("*").Add(val)
			}
			wire = append(wire, jen.Id(fl.GoName).Add(typ).Tag(map[string]string{"json": fl.Name}))
			values[jen.Id(fl.GoName)] = val
		}
		// A named (local) type, so that JSON type errors name it rather than
		// spelling out the struct.
		wireType := g.lower + "Body"
		body = append(body,
			jen.Type().Id(wireType).Struct(wire...),
			jen.Var().Id("w").Id(wireType),
			decodeErr(jen.Op("&").Id("w")),
		)
		for _, fl := range required {
			body = append(body, jen.If(jen.Id("w").Dot(fl.GoName).Op("==").Nil()).Block(
				g.invalid(fail, verbatim(g.requiredText(fl.Name))+" is missing")))
		}
		var uuids []jen.Code
		for _, fl := range g.c.Message.Fields {
			if fl.Type == spec.TypeUUID {
				uuids = append(uuids, jen.Id("m").Dot(fl.GoName).Op("=").Qual("strings", "ToLower").Call(jen.Id("m").Dot(fl.GoName)))
			}
		}
		if len(uuids) == 0 {
			body = append(body, jen.Return(jen.Id("h").Dot("HandleMessage").Call(jen.Id("ctx"), jen.Op("&").Id(g.t).Values(values))))
		} else {
			// uuid fields in canonical (lowercase) form, so that apply sees
			// them as the key and the hash tag have them.
			body = append(body, jen.Id("m").Op(":=").Op("&").Id(g.t).Values(values))
			body = append(body, uuids...)
			body = append(body, jen.Return(jen.Id("h").Dot("HandleMessage").Call(jen.Id("ctx"), jen.Id("m"))))
		}
	} else {
		// The message type decodes as the producer's code expects; a second
		// decoding into pointers to raw JSON checks presence, matching field
		// names as encoding/json does.
		var present []jen.Code
		names := map[string]bool{}
		goNames := make([]string, len(required))
		for i, fl := range required {
			n := spec.GoName(fl.Name)
			// A name with no Go form, or taken: F<i>, or the next free F<k>.
			for k := i; !token.IsIdentifier(n) || !token.IsExported(n) || names[n]; k++ {
				n = "F" + strconv.Itoa(k)
			}
			names[n] = true
			goNames[i] = n
			present = append(present, jen.Id(n).Op("*").Qual("encoding/json", "RawMessage").Tag(map[string]string{"json": fl.Name}))
		}
		body = append(body,
			jen.Var().Id("m").Add(g.msgType()),
			decodeErr(jen.Op("&").Id("m")),
			jen.Var().Id("present").Struct(present...),
			decodeErr(jen.Op("&").Id("present")),
		)
		for i, fl := range required {
			body = append(body, jen.If(jen.Id("present").Dot(goNames[i]).Op("==").Nil()).Block(
				g.invalid(fail, verbatim(g.requiredText(fl.Name))+" is missing")))
		}
		body = append(body, jen.Return(jen.Id("h").Dot("HandleMessage").Call(jen.Id("ctx"), jen.Op("&").Id("m"))))
	}
	var names []string
	for _, fl := range required {
		names = append(names, fl.Name)
	}
	uuidDoc := ""
	if g.foreign == nil {
		for _, fl := range g.c.Message.Fields {
			if fl.Type == spec.TypeUUID {
				uuidDoc = " It puts uuid fields in their canonical, lowercase form."
			}
		}
	}
	fileDoc(f, fmt.Sprintf("Handle decodes body, a JSON message of the %s consumer, and handles it with HandleMessage. Unknown fields are ignored.%s A body that does not decode, or lacks %s (absent or null; 0 and false are values), is guard.ErrInvalidMessage: dead-letter it.",
		g.c.Name, uuidDoc, list(names)))
	f.Func().Params(jen.Id("h").Op("*").Id(g.t+"Handler")).Id("Handle").Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("body").Index().Byte(),
	).Params(jen.Qual(guardPkg, "Outcome"), jen.Error()).Block(body...)
	f.Line()
}

// hashTag returns the statements that check the hash tag of m and the
// expression of its value.
func (g *consumerGen) hashTag() ([]jen.Code, *jen.Statement) {
	fail := []jen.Code{jen.Lit(0)}
	fl := g.field(g.c.HashTag)
	v := g.sel("m", fl)
	switch fl.Type {
	case spec.TypeUUID:
		// The canonical form, as the key has it: one UUID, one tag, however
		// the producer spelled it.
		checks := []jen.Code{
			jen.List(jen.Id("tag"), jen.Err()).Op(":=").Qual(guardPkg, "CanonicalUUID").Call(v),
			jen.If(jen.Err().Op("!=").Nil()).Block(g.invalid(fail, "hash_tag field "+verbatim(fl.Name)+": %w", jen.Err())),
		}
		return checks, jen.Id("tag")
	case spec.TypeString:
		checks := []jen.Code{
			jen.Id("tag").Op(":=").Add(g.conv(fl, "string", v)),
			jen.If(jen.Id("tag").Op("==").Lit("")).Block(g.invalid(fail, "hash_tag field "+verbatim(fl.Name)+" is empty")),
			jen.If(jen.Qual("strings", "ContainsAny").Call(jen.Id("tag"), jen.Lit("{}"))).Block(g.invalid(fail, "hash_tag field "+verbatim(fl.Name)+" contains a brace")),
		}
		return checks, jen.Id("tag")
	case spec.TypeInt, spec.TypeInt32, spec.TypeInt64:
		return nil, jen.Qual("strconv", "FormatInt").Call(g.conv(fl, "int64", v), jen.Lit(10))
	case spec.TypeUint32, spec.TypeUint64:
		return nil, jen.Qual("strconv", "FormatUint").Call(g.conv(fl, "uint64", v), jen.Lit(10))
	case spec.TypeBool:
		return nil, jen.Qual("strconv", "FormatBool").Call(g.conv(fl, "bool", v))
	case spec.TypeTime:
		return nil, v.Dot("UTC").Call().Dot("Format").Call(jen.Qual("time", "RFC3339Nano"))
	}
	panic("generator: hash_tag of type " + fl.Type)
}

func (g *consumerGen) handleMessage(f *jen.File) {
	fail := []jen.Code{jen.Lit(0)}
	param, paramType := g.effectParam()
	body := []jen.Code{
		jen.If(jen.Id("h").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("h").Dot("err"))),
		jen.If(jen.Id("m").Op("==").Nil()).Block(g.invalid(fail, "nil message")),
		jen.List(jen.Id("key"), jen.Err()).Op(":=").Add(g.callKey()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Err())),
	}
	method := "Do"
	if g.c.Effect == spec.EffectExternal {
		method = "Run"
	}
	args := []jen.Code{
		jen.Id("ctx"),
		jen.Id(g.t + "Consumer"),
		jen.Id("key"),
		g.callFingerprint(),
		jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id(param).Add(paramType)).Error().Block(
			jen.Return(jen.Id("h").Dot("apply").Call(jen.Id("ctx"), jen.Id(param), jen.Id("m"))),
		),
	}
	tagDoc := ""
	if g.c.HashTag != "" {
		checks, tag := g.hashTag()
		body = append(body, checks...)
		args = append(args, jen.Qual(redisguardPkg, "HashTag").Call(tag))
		fl := g.field(g.c.HashTag)
		switch fl.Type {
		case spec.TypeUUID:
			tagDoc = fmt.Sprintf(" The dedup record is written under the hash tag of m's %s field, in canonical (lowercase) form, which apply's keys must carry too; a value that is not a UUID is guard.ErrInvalidMessage.", g.c.HashTag)
		case spec.TypeString:
			tagDoc = fmt.Sprintf(" The dedup record is written under the hash tag of m's %s field; an empty one, or one with a brace, is guard.ErrInvalidMessage.", g.c.HashTag)
		default:
			tagDoc = fmt.Sprintf(" The dedup record is written under the hash tag of m's %s field.", g.c.HashTag)
		}
		if !slices.Contains(g.c.Key, g.c.HashTag) {
			args = append(args, jen.Qual(redisguardPkg, "PinHashTag").Call())
			tagDoc += fmt.Sprintf(" The field is not part of the key, so the key is pinned to the first %s it came with (redisguard.PinHashTag, one more round trip): another value is guard.ErrKeyConflict, as on the other stores.", g.c.HashTag)
		}
	}
	body = append(body, jen.Return(jen.Id("h").Dot("store").Dot(method).Call(args...)))

	var applied string
	switch g.c.Effect {
	case spec.EffectSQL:
		applied = "guard.Applied when apply ran now and its transaction committed with the dedup row"
	case spec.EffectRedis:
		applied = "guard.Applied when apply's commands ran now, in one MULTI/EXEC with the dedup record"
	default:
		applied = "guard.Applied when apply ran now and succeeded"
	}
	fileDoc(f, fmt.Sprintf("HandleMessage runs the effect of m unless its key was handled before. It returns %s; guard.Duplicate when the key was done before (acknowledge the message); otherwise an error of the guard error table (guard.Permanent tells which must not be retried). A nil m, or a key field without a valid value, is guard.ErrInvalidMessage.%s",
		applied, tagDoc))
	f.Func().Params(jen.Id("h").Op("*").Id(g.t+"Handler")).Id("HandleMessage").Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("m").Op("*").Add(g.msgType()),
	).Params(jen.Qual(guardPkg, "Outcome"), jen.Error()).Block(body...)
}
