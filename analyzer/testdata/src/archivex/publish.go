package archivex

import (
	"context"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

type broker struct{ ch *amqp.Channel }

// send publishes: its failure is a message not forwarded, not a poison one.
func (b *broker) send(ctx context.Context, key string, body []byte) error {
	return b.ch.PublishWithContext(ctx, "sda", key, false, false, amqp.Publishing{Body: body})
}

// route forwards each delivery and acks it even when the forward failed.
func route(ctx context.Context, b *broker, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		if err := b.send(ctx, "ingest", d.Body); err != nil {
			log.Printf("forward: %v", err)
		}
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler route also runs when archivex.broker.send fails`
	}
}

// routeNack naks a delivery whose forward failed, to be redelivered.
func routeNack(ctx context.Context, b *broker, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		if err := b.send(ctx, "ingest", d.Body); err != nil {
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}
