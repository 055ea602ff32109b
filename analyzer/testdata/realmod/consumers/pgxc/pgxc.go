// Package pgxc holds consumers whose effects go through pgx v5.
package pgxc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	amqp "github.com/rabbitmq/amqp091-go"
	kafkago "github.com/segmentio/kafka-go"

	"example.com/realmod/sms"
)

type Order struct {
	ID     string `json:"id"`
	UserID int64  `json:"user_id"`
	SKU    string `json:"sku"`
	Qty    int    `json:"qty"`
	Phone  string `json:"phone"`
}

var ErrOutOfStock = errors.New("out of stock")

// truth: ok
func AddPointsTx(ctx context.Context, pool *pgxpool.Pool, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Reject(false)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, `INSERT INTO processed_messages (consumer, msg_id) VALUES ('add_points', $1) ON CONFLICT DO NOTHING`, d.MessageId)
	if err != nil {
		return d.Nack(false, true)
	}
	if tag.RowsAffected() == 0 {
		return d.Ack(false)
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET points = points + 10 WHERE id = $1`, o.UserID); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(ctx); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: ok
func ShipAndNotify(ctx context.Context, pool *pgxpool.Pool, c *sms.Client, r *kafkago.Reader) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var o Order
		if err := json.Unmarshal(m.Value, &o); err != nil {
			_ = r.CommitMessages(ctx, m)
			continue
		}
		tag, err := pool.Exec(ctx, `UPDATE orders SET state = 'shipped' WHERE id = $1 AND state = 'paid'`, o.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := c.Send(ctx, o.Phone, "Your order shipped"); err != nil {
				return err
			}
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// truth: bug IDEM001
func ReserveStock(ctx context.Context, pool *pgxpool.Pool, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Reject(false)
	}
	tag, err := pool.Exec(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2 AND qty >= $1`, o.Qty, o.SKU)
	if err != nil {
		return d.Nack(false, true)
	}
	if tag.RowsAffected() == 0 {
		_ = d.Reject(false)
		return fmt.Errorf("%s: %w", o.SKU, ErrOutOfStock)
	}
	return d.Ack(false)
}

// truth: bug IDEM001
func AddPointsIfUserExists(ctx context.Context, pool *pgxpool.Pool, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Reject(false)
	}
	var id int64
	err := pool.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`, o.UserID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return d.Ack(false) // unknown user: nothing to credit
	}
	if err != nil {
		return d.Nack(false, true)
	}
	if _, err := pool.Exec(ctx, `UPDATE users SET points = points + 10 WHERE id = $1`, id); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
