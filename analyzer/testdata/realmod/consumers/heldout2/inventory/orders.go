package inventory

import (
	"context"
	"encoding/json"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	amqp "github.com/rabbitmq/amqp091-go"
)

// StatusChanged carries the new state of an order aggregate and the version
// the producer derived it from.
type StatusChanged struct {
	EventID string `json:"event_id"`
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
	Version int64  `json:"version"`
}

// OrderProjector keeps the warehouse's copy of orders and an outbox.
type OrderProjector struct {
	Pool *pgxpool.Pool
}

// HandleStatus applies the change with optimistic locking: the UPDATE only
// matches while the row is still at Version-1, its rows-affected decides
// whether the outbox row is written, and both share one pgx transaction. A
// redelivery finds the version already bumped and just acks.
//
// truth: ok
func (p *OrderProjector) HandleStatus(ctx context.Context, d amqp.Delivery) {
	var ev StatusChanged
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		_ = d.Reject(false)
		return
	}
	err := pgx.BeginFunc(ctx, p.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx,
			`UPDATE orders SET status = $1, version = $2 WHERE id = $3 AND version = $4`,
			ev.Status, ev.Version, ev.OrderID, ev.Version-1)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			log.Printf("order %s: stale or duplicate v%d", ev.OrderID, ev.Version)
			return nil
		}
		payload, _ := json.Marshal(ev)
		_, err = tx.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('warehouse.order-status', $1)`, payload)
		return err
	})
	if err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// HandlePickRequested writes a pick-list row and an outbox event per
// delivery. Neither insert is keyed by the event: every redelivery creates
// another pick list and publishes another "pick.created".
//
// truth: bug IDEM001
func (p *OrderProjector) HandlePickRequested(ctx context.Context, d amqp.Delivery) {
	var ev StatusChanged
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		_ = d.Reject(false)
		return
	}
	err := pgx.BeginFunc(ctx, p.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO pick_lists (order_id, state) VALUES ($1, 'open')`, ev.OrderID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('pick.created', $1)`, d.Body)
		return err
	})
	if err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// HandleRelay only relays the event into the outbox, keyed by the source
// event id with ON CONFLICT DO NOTHING. It is the handler's only write, so
// a duplicate inserts nothing and no branch is needed: the insert is
// naturally idempotent. (idemlint's documentation lists INSERT without conflict handling
// as the effect; with it and no other effect, a reviewer passes it.)
//
// truth: ok
func (p *OrderProjector) HandleRelay(ctx context.Context, d amqp.Delivery) {
	var ev StatusChanged
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		_ = d.Reject(false)
		return
	}
	if _, err := p.Pool.Exec(ctx,
		`INSERT INTO outbox (id, topic, payload) VALUES ($1, 'warehouse.relay', $2) ON CONFLICT (id) DO NOTHING`,
		ev.EventID, d.Body); err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}
