// Package dropx: a RabbitMQ consumer that rejects without requeue when its
// effect fails, in a program that declares no dead-letter exchange: the
// message is dropped. A poison message rejected the same way is dropped on
// purpose.
package dropx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"shop"
)

func Work(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		o, err := shop.Decode(d.Body)
		if err != nil {
			d.Reject(false) // poison
			continue
		}
		if err := shop.SetPhone(ctx, db, o.User, o.Phone); err != nil {
			d.Reject(false) // want `amqp091.Delivery.Reject in handler Work does not requeue the message when shop.SetPhone fails, and the program declares no dead-letter exchange: the message is dropped \(IDEM003\)`
			continue
		}
		d.Ack(false)
	}
}
