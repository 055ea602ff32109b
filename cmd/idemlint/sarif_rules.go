package main

// ruleDoc is what SARIF output says of a diagnostic code.
type ruleDoc struct {
	code  string
	name  string // a PascalCase name, SARIF's reportingDescriptor.name
	title string // the code's title (shortDescription)
	text  string // what it finds (fullDescription)
	url   string // its documentation (helpUri)
	level string // the SARIF level of its findings
}

// docBase is where the codes are documented today: the headings of the
// analyzer's package documentation ("# IDEM001" is #hdr-IDEM001).
const docBase = "https://pkg.go.dev/github.com/idemkit/idem/analyzer#hdr-"

// sarifRules returns the rules of SARIF output, one per diagnostic code, in
// code order. It is the one place that knows what the codes mean: the
// titles are the README's, the texts the first paragraph of each code's
// section of the analyzer's package documentation (sarif_internal_test.go
// keeps them in step). When the analyzer exports its per-code
// documentation (a title, a text and a URL per code), this function reads
// it instead.
func sarifRules() []ruleDoc {
	rules := []ruleDoc{
		{"IDEM000", "MalformedDirective", "malformed //idem: directive",
			"A malformed //idem: directive: an //idem:ignore without a known code or without a reason, or an unknown directive. It suppresses nothing.", "", "warning"},
		{"IDEM001", "UnguardedEffect", "effect with no dedup check guarding it",
			"An effect in a handler with no dedup check guarding it. A redelivery performs it again.", "", "error"},
		{"IDEM002", "AckBeforeEffect", "ack before the effect",
			"The message is acked (or a goroutine doing the effect is not waited for) before the effect: a crash in between loses the message. Paths stop at the loop's next message, so an ack in one iteration does not precede the next iteration's effect.", "", "error"},
		{"IDEM003", "AckOnFailure", "ack on a failure path",
			"The message is acked on a failure path — after the effect or a processing step failed, in a deferred ack, or by returning success from a handler acked by its return (asynq, watermill, RocketMQ): the error is swallowed and the message lost. Acking a message that cannot be decoded, or a duplicate, is not a failure.", "", "error"},
		{"IDEM004", "UnusedDedupCheck", "dedup check whose result decides nothing",
			"A dedup check whose result never decides a branch: the effect after it runs for duplicates too.", "", "error"},
		{"IDEM005", "CheckThenAct", "check-then-act dedup (-strict)",
			"A check-then-act dedup (reported with -strict): a lookup of the key, then a write of it. Two concurrent deliveries both pass the lookup.", "", "error"},
		{"IDEM006", "SplitTransactions", "dedup record and effect in different transactions",
			"The dedup record and the effect are written in different transactions (the check through db, the effect through tx; both through a pool; a Redis SETNX then an INCRBY; an apply function that ignores the transaction it is given): a crash between them leaves the record without the effect.", "", "error"},
		{"IDEM007", "AutoAckWithEffects", "auto-ack consumer with effects",
			"An auto-ack or auto-commit consumer whose handler has effects: amqp Consume with autoAck true, kafka-go ReadMessage on a reader with a GroupID, a franz-go client made without kgo.DisableAutoCommit (or AutoCommitMarks), a confluent-kafka-go consumer whose ConfigMap does not set enable.auto.commit, legacy nats.go JetStream Subscribe without nats.ManualAck(). The broker forgets the message before the effect; a crash loses it.", "", "error"},
	}
	for i := range rules {
		rules[i].url = docBase + rules[i].code
	}
	return rules
}
