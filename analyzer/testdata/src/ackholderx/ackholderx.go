// Package ackholderx: a consumer whose Receive decodes the next RabbitMQ
// delivery and returns the service's own Delivery, whose Ack and Reject
// are closures over the broker's delivery; a worker batches what a
// receiving goroutine queues on a channel, inserts the batch and acks each
// delivery through its closure.
package ackholderx

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Event is an application event.
type Event struct {
	ID  string
	App string
}

// Delivery is an event with the way to settle it.
type Delivery struct {
	Event  Event
	Ack    func() error
	Reject func() error
}

// Source yields deliveries.
type Source interface {
	Receive(ctx context.Context) (Delivery, error)
}

// Consumer reads the events queue.
type Consumer struct {
	deliveries <-chan amqp.Delivery
}

// NewConsumer consumes the events queue with manual acks.
func NewConsumer(ch *amqp.Channel) (*Consumer, error) {
	d, err := ch.Consume("events", "", false, false, false, false, nil)
	if err != nil {
		return nil, err
	}
	return &Consumer{deliveries: d}, nil
}

// Receive returns the next event that decodes.
func (c *Consumer) Receive(ctx context.Context) (Delivery, error) {
	for {
		select {
		case <-ctx.Done():
			return Delivery{}, ctx.Err()
		case d, ok := <-c.deliveries:
			if !ok {
				return Delivery{}, errors.New("closed")
			}
			var ev Event
			if err := json.Unmarshal(d.Body, &ev); err != nil {
				_ = d.Reject(false)
				continue
			}
			return Delivery{
				Event:  ev,
				Ack:    func() error { return d.Ack(false) },
				Reject: func() error { return d.Reject(false) },
			}, nil
		}
	}
}

// Worker inserts events in batches.
type Worker struct {
	source Source
	db     *sql.DB
}

// Run batches what receive queues and flushes every ten.
func (w *Worker) Run(ctx context.Context) error {
	queued := make(chan Delivery, 10)
	go w.receive(ctx, queued)
	var batch []Delivery
	for {
		select {
		case d, ok := <-queued:
			if !ok {
				return w.flush(ctx, batch)
			}
			batch = append(batch, d)
			if len(batch) >= 10 {
				if err := w.flush(ctx, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *Worker) receive(ctx context.Context, out chan<- Delivery) {
	defer close(out)
	for {
		d, err := w.source.Receive(ctx)
		if err != nil {
			return
		}
		out <- d
	}
}

// flush inserts the batch's events and acks each delivery through its
// field (so it handles the batch on its own); a failed insert rejects them
// all.
func (w *Worker) flush(ctx context.Context, batch []Delivery) error {
	for _, d := range batch {
		if _, err := w.db.ExecContext(ctx, `INSERT INTO events (event_id, app_id) VALUES ($1, $2)`, d.Event.ID, d.Event.App); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO events .*" in handler Worker.flush is not guarded by a dedup check \(IDEM001\)`
			for _, r := range batch {
				_ = r.Reject()
			}
			return err
		}
	}
	for _, d := range batch {
		if err := d.Ack(); err != nil {
			return err
		}
	}
	return nil
}

// Main wires the consumer to the worker.
func Main(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	c, err := NewConsumer(ch)
	if err != nil {
		return err
	}
	return (&Worker{source: c, db: db}).Run(ctx)
}
