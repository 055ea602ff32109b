// Package idem002: the examples of IDEM002's documentation.
package idem002

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
)

func bad(ctx context.Context, h guard.Handler, db *sql.DB, d amqp.Delivery, n int, user string) error {
	d.Ack(false) // want `ack amqp091.Delivery.Ack in handler bad comes before effect .* a crash in between loses the message \(IDEM002\)`
	_, err := h.Handle(ctx, d.Body)
	return err
}

func good(ctx context.Context, h guard.Handler, d amqp.Delivery) error {
	if _, err := h.Handle(ctx, d.Body); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
