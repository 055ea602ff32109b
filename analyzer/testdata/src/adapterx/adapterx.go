// Package adapterx: a RabbitMQ consumer that adapts each delivery to the
// program's own Delivery interface (faked in its tests) and hands it to
// the function doing the work, which acks through it. That function is a
// handler of its own, and reports its own effects (it acks the message
// itself): the loop only adapts the message, unless it claims the message
// first.
package adapterx

import (
	"context"
	"database/sql"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Delivery is what the work is given.
type Delivery interface {
	Ack(multiple bool) error
	Nack(multiple, requeue bool) error
	Body() []byte
}

// Sizer is an interface the adapter also implements, with no ack in it.
type Sizer interface{ Size() int }

// DeliveryAdapter keeps the client's delivery.
type DeliveryAdapter struct{ D amqp.Delivery }

func (a *DeliveryAdapter) Ack(multiple bool) error           { return a.D.Ack(multiple) }
func (a *DeliveryAdapter) Nack(multiple, requeue bool) error { return a.D.Nack(multiple, requeue) }
func (a *DeliveryAdapter) Body() []byte                      { return a.D.Body }
func (a *DeliveryAdapter) Size() int                         { return len(a.D.Body) }

// NewDeliveryAdapter adapts a delivery.
func NewDeliveryAdapter(d amqp.Delivery) *DeliveryAdapter { return &DeliveryAdapter{D: d} }

// processMessage adds points and acks even when that failed: the message
// is lost.
func processMessage(ctx context.Context, db *sql.DB, d Delivery) {
	if _, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, string(d.Body())); err != nil { // want `effect sql.DB.ExecContext .* in handler processMessage is not guarded by a dedup check`
		log.Print(err)
	}
	_ = d.Ack(false) // want `ack adapterx.Delivery.Ack in handler processMessage also runs when`
}

// addBonus adds a bonus and acks; its only caller claims the message
// first, so the bonus is added once.
func addBonus(ctx context.Context, db *sql.DB, d Delivery) {
	if _, err := db.ExecContext(ctx, `UPDATE users SET points = points + 10 WHERE id = $1`, string(d.Body())); err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// consumeClaimed claims each delivery's id before it hands it on.
func consumeClaimed(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	msgs, err := ch.Consume("bonus", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		res, err := db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_ = d.Ack(false) // a duplicate
			continue
		}
		addBonus(ctx, db, NewDeliveryAdapter(d))
	}
	return nil
}

// measure takes the adapter as a Sizer: no message.
func measure(s Sizer) int { return s.Size() }

func consume(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	msgs, err := ch.Consume("points", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		a := NewDeliveryAdapter(d)
		log.Print(measure(a))
		processMessage(ctx, db, a) // reported in processMessage, which acks the message itself
	}
	return nil
}
