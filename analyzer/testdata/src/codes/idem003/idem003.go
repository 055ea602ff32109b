// Package idem003: the examples of IDEM003's documentation.
package idem003

import (
	"context"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
)

func bad(ctx context.Context, h guard.Handler, d amqp.Delivery) {
	defer d.Ack(false) // want `deferred ack amqp091.Delivery.Ack in handler bad also runs when handling fails: the error is swallowed and the message lost \(IDEM003\)`
	if _, err := h.Handle(ctx, d.Body); err != nil {
		log.Print(err)
	}
}

func good(ctx context.Context, h guard.Handler, d amqp.Delivery) {
	if _, err := h.Handle(ctx, d.Body); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
