// Package republish: retries by republication. A consumer whose step
// failed publishes the delivery again (to a retry queue with a TTL, to a
// dead-letter queue) and acks it: the message was handed on, not lost —
// once the publish is known to have succeeded.
package republish

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"

	"shop"
)

type Consumer struct {
	ch *amqp.Channel
	db *sql.DB
}

// retried republishes the body to the retry queue and acks only when that
// publish succeeded.
func (c *Consumer) retried(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, o.User, o.Phone); err != nil {
		if err := c.ch.PublishWithContext(ctx, "", "phones.retry", false, false, amqp.Publishing{Body: d.Body, Headers: amqp.Table{"x-retry": 1}}); err != nil {
			d.Nack(false, true)
			return
		}
		d.Ack(false)
		return
	}
	d.Ack(false)
}

// Event is a decoded message.
type Event struct {
	User  string
	Phone string
}

// deadLettered re-encodes the decoded event for the dead-letter queue.
func (c *Consumer) deadLettered(ctx context.Context, d amqp.Delivery) {
	var ev Event
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, ev.User, ev.Phone); err != nil {
		body, _ := json.Marshal(ev)
		if err := c.ch.Publish("", "phones.dead", false, false, amqp.Publishing{Body: body}); err != nil {
			d.Nack(false, true)
			return
		}
		d.Ack(false)
		return
	}
	d.Ack(false)
}

// retriedBlind does not look at the publish's error: when it fails, the
// message is lost.
func (c *Consumer) retriedBlind(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, o.User, o.Phone); err != nil {
		c.ch.PublishWithContext(ctx, "", "phones.retry", false, false, amqp.Publishing{Body: d.Body})
		d.Ack(false) // want `IDEM003`
		return
	}
	d.Ack(false)
}

// retriedLogged logs a failed publish and acks: lost.
func (c *Consumer) retriedLogged(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, o.User, o.Phone); err != nil {
		if err := c.ch.PublishWithContext(ctx, "", "phones.retry", false, false, amqp.Publishing{Body: d.Body}); err != nil {
			log.Print(err)
		}
		d.Ack(false) // want `IDEM003`
		return
	}
	d.Ack(false)
}

// ackedFirst acks before it republishes: a failed publish loses it.
func (c *Consumer) ackedFirst(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, o.User, o.Phone); err != nil {
		d.Ack(false) // want `IDEM003`
		if err := c.ch.PublishWithContext(ctx, "", "phones.retry", false, false, amqp.Publishing{Body: d.Body}); err != nil {
			log.Print(err)
		}
		return
	}
	d.Ack(false)
}

// announced publishes a notice that names no part of the message: the
// message itself is lost.
func (c *Consumer) announced(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	if err := shop.SetPhone(ctx, c.db, o.User, o.Phone); err != nil {
		if err := c.ch.PublishWithContext(ctx, "", "alerts", false, false, amqp.Publishing{Body: []byte("phone update failed")}); err != nil {
			d.Nack(false, true)
			return
		}
		d.Ack(false) // want `IDEM003`
		return
	}
	d.Ack(false)
}
