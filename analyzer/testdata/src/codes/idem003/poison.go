package idem003

import (
	"context"
	"encoding/json"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

type grant struct {
	User string `json:"user"`
}

// poisonCopied acks a message that cannot be decoded even when its
// dead-letter copy fails: no redelivery could ever decode it.
func poisonCopied(ctx context.Context, ch *amqp.Channel, p *points, d amqp.Delivery) {
	var a grant
	if err := json.Unmarshal(d.Body, &a); err != nil {
		if err := ch.PublishWithContext(ctx, "", "dead", false, false, amqp.Publishing{Body: d.Body}); err != nil {
			log.Print(err)
		}
		d.Ack(false)
		return
	}
	if err := p.AddPoints(ctx, a.User, 1); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// failedCopied acks a message whose handling failed when its dead-letter
// copy fails too: a redelivery would have handled it.
func failedCopied(ctx context.Context, ch *amqp.Channel, p *points, d amqp.Delivery) {
	var a grant
	if err := json.Unmarshal(d.Body, &a); err != nil {
		d.Ack(false)
		return
	}
	if err := p.AddPoints(ctx, a.User, 1); err != nil {
		if err := ch.PublishWithContext(ctx, "", "dead", false, false, amqp.Publishing{Body: d.Body}); err != nil {
			log.Print(err)
		}
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler failedCopied also runs when amqp091.Channel.PublishWithContext fails`
		return
	}
	d.Ack(false)
}
