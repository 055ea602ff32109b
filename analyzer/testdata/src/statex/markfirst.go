package statex

// The state written first: a handler that skips a paid order, marks the
// order paid and only then publishes the receipt. A failed publish (or a
// stop in between) leaves the order paid: the redelivery skips it, and the
// receipt is never sent.

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Notifier struct {
	store *Store
	ch    *amqp.Channel
}

// paidFirst marks the order, then publishes.
func (n *Notifier) paidFirst(ctx context.Context, d amqp.Delivery) {
	o, err := n.store.get(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if o.Status == "paid" {
		d.Ack(false)
		return
	}
	if err := n.store.markPaid(ctx, o.ID); err != nil {
		d.Nack(false, true)
		return
	}
	if err := n.ch.PublishWithContext(ctx, "", "receipts", false, false, amqp.Publishing{Body: d.Body}); err != nil { // want `runs after .* wrote the state \(Status\) that makes a redelivery skip this message: .*\(IDEM006\)`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// paidAfter publishes, then marks: a redelivery after a failed mark
// publishes the receipt again (at least once), nothing is lost.
func (n *Notifier) paidAfter(ctx context.Context, d amqp.Delivery) {
	o, err := n.store.get(ctx, string(d.Body))
	if err != nil {
		d.Nack(false, true)
		return
	}
	if o.Status == "paid" {
		d.Ack(false)
		return
	}
	if err := n.ch.PublishWithContext(ctx, "", "receipts", false, false, amqp.Publishing{Body: d.Body}); err != nil {
		d.Nack(false, true)
		return
	}
	if err := n.store.markPaid(ctx, o.ID); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
