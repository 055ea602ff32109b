// Package idem007: the examples of IDEM007's documentation.
package idem007

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
)

func bad(ctx context.Context, ch *amqp.Channel, h guard.Handler) {
	msgs, _ := ch.Consume("orders", "", true, false, false, false, nil) // want `auto-ack consumer amqp091.Channel.Consume \(autoAck true\) acks each message before handler bad performs .* \(IDEM007\)`
	for d := range msgs {
		h.Handle(ctx, d.Body)
	}
}

func good(ctx context.Context, ch *amqp.Channel, h guard.Handler) {
	msgs, _ := ch.Consume("orders", "", false, false, false, false, nil)
	for d := range msgs {
		if _, err := h.Handle(ctx, d.Body); err != nil {
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}
