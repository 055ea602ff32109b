// Package analyzer defines idemlint, a go/analysis checker that finds message
// handlers which write, call out or ack without a dedup check in front.
//
// # Analyzer idemlint
//
// idemlint: report message handlers whose effects are not idempotent and not guarded by a dedup check
//
// A broker redelivers: after a timeout, a crash between the effect and the
// ack, a failover. A handler whose effect is not idempotent (an INSERT, an
// UPDATE … SET n = n + 1, an INCRBY, an HTTP POST, an email) then performs
// it again. idemlint finds such handlers, in code written by hand or
// generated.
//
// Handlers (roots) are functions and closures that receive a broker
// message (a parameter of a known message type, ConsumeClaim, an
// asynq/watermill/jetstream/Pub/Sub callback), loops over a delivery channel
// or a fetch call, and functions marked //idem:handler. A closure is judged
// where it is created.
//
// An effect is guarded when the result of a dedup check flows into a branch
// whose fresh side dominates the effect and whose duplicate side cannot
// reach it (on SSA, like nilness and gopls's yield).
package analyzer
