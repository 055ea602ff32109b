// Package handoffx: handlers that hand the message over a channel to a
// goroutine of the program that does the effect, and ack; the channel is
// a struct field, reached through an interface whose implementation
// queues for its worker.
package handoffx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Event struct{ ID, Body string }

// Provider is what the handlers submit events to; the implementation is
// wired in main.
type Provider interface {
	Submit(ev Event)
	Apply(ctx context.Context, ev Event) error
}

type queued struct {
	db     *sql.DB
	events chan Event
	jobs   chan job
}

type job struct {
	ev    Event
	reply chan error
}

func newQueued(db *sql.DB) *queued {
	q := &queued{db: db, events: make(chan Event, 64), jobs: make(chan job)}
	go q.run()
	go q.serve()
	return q
}

// Submit queues the event for the worker.
func (q *queued) Submit(ev Event) { q.events <- ev }

// Apply hands the event to the server and waits for its reply.
func (q *queued) Apply(ctx context.Context, ev Event) error {
	r := make(chan error, 1)
	q.jobs <- job{ev: ev, reply: r}
	return <-r
}

func (q *queued) run() {
	for ev := range q.events {
		q.db.Exec("INSERT INTO ledger (id, body) VALUES ($1, $2)", ev.ID, ev.Body)
	}
}

func (q *queued) serve() {
	for j := range q.jobs {
		_, err := q.db.Exec("INSERT INTO ledger (id, body) VALUES ($1, $2)", j.ev.ID, j.ev.Body)
		j.reply <- err
	}
}

// ApplyCtx hands the event to the server and waits for its reply or the
// end of ctx: no hand-off either.
func (q *queued) ApplyCtx(ctx context.Context, ev Event) error {
	r := make(chan error, 1)
	q.jobs <- job{ev: ev, reply: r}
	select {
	case err := <-r:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type H struct{ p Provider }

// appliedCtx waits for the server's reply, or ctx, before the ack: no
// hand-off.
func (h *H) appliedCtx(ctx context.Context, q *queued, d amqp.Delivery) {
	if err := q.ApplyCtx(ctx, Event{ID: d.MessageId, Body: string(d.Body)}); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// onEvent hands the event off, then acks: the insert runs after the ack.
func (h *H) onEvent(d amqp.Delivery) {
	h.p.Submit(Event{ID: d.MessageId, Body: string(d.Body)}) // want `IDEM002`
	d.Ack(false)
}

// ackFirst acks, then hands the event off.
func (h *H) ackFirst(d amqp.Delivery) {
	d.Ack(false) // want `IDEM002`
	h.p.Submit(Event{ID: d.MessageId, Body: string(d.Body)})
}

// applied waits for the server's reply before the ack: no hand-off. The
// insert itself is unguarded.
func (h *H) applied(ctx context.Context, d amqp.Delivery) {
	if err := h.p.Apply(ctx, Event{ID: d.MessageId, Body: string(d.Body)}); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

func consume(ctx context.Context, ch *amqp.Channel, db *sql.DB) {
	q := newQueued(db)
	h := &H{p: q}
	msgs, _ := ch.Consume("events", "", false, false, false, false, nil)
	for d := range msgs {
		switch d.Type {
		case "a":
			h.onEvent(d)
		case "b":
			h.ackFirst(d)
		case "c":
			h.appliedCtx(ctx, q, d)
		default:
			h.applied(ctx, d)
		}
	}
}

// pool hands each event to one of its workers, each receiving from its
// own channel, given as a parameter.
type pool struct {
	db  *sql.DB
	chs []chan Event
}

func newPool(db *sql.DB) *pool {
	p := &pool{db: db, chs: make([]chan Event, 4)}
	for i := range p.chs {
		p.chs[i] = make(chan Event, 16)
		go p.work(p.chs[i])
	}
	return p
}

func (p *pool) work(ch chan Event) {
	for ev := range ch {
		p.db.Exec("INSERT INTO ledger (id, body) VALUES ($1, $2)", ev.ID, ev.Body)
	}
}

func (p *pool) push(ev Event) error {
	p.chs[len(ev.ID)%len(p.chs)] <- ev
	return nil
}

// pooled acks first, then pushes to a worker.
func pooled(p *pool, d amqp.Delivery) {
	d.Ack(false) // want `IDEM002`
	p.push(Event{ID: d.MessageId, Body: string(d.Body)})
}

func consumePool(ch *amqp.Channel, db *sql.DB) {
	p := newPool(db)
	msgs, _ := ch.Consume("pool", "", false, false, false, false, nil)
	for d := range msgs {
		pooled(p, d)
	}
}

// deferred acks when it returns, after the hand-off.
func (h *H) deferred(d amqp.Delivery) {
	defer d.Ack(false)
	if len(d.Body) == 0 {
		return
	}
	h.p.Submit(Event{ID: d.MessageId, Body: string(d.Body)}) // want `IDEM002`
}

func consumeDeferred(ch *amqp.Channel, db *sql.DB) {
	h := &H{p: newQueued(db)}
	msgs, _ := ch.Consume("deferred", "", false, false, false, false, nil)
	for d := range msgs {
		h.deferred(d)
	}
}
