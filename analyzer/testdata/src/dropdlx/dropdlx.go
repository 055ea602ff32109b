// Package dropdlx: the same consumer in a program whose queue has a
// dead-letter exchange: a reject without requeue dead-letters the message.
package dropdlx

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"shop"
)

func Declare(ch *amqp.Channel) error {
	_, err := ch.QueueDeclare("phones", true, false, false, false, amqp.Table{"x-dead-letter-exchange": "phones.dlx"})
	return err
}

func Work(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		o, err := shop.Decode(d.Body)
		if err != nil {
			d.Reject(false)
			continue
		}
		if err := shop.SetPhone(ctx, db, o.User, o.Phone); err != nil {
			d.Reject(false)
			continue
		}
		d.Ack(false)
	}
}
