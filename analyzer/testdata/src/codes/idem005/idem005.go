// Package idem005: the examples of IDEM005's documentation (reported with
// -strict).
package idem005

import (
	"context"
	"database/sql"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

func bad(ctx context.Context, tx *sql.Tx, d amqp.Delivery) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM processed WHERE id = $1`, d.MessageId).Scan(&one) // want `check-then-act dedup sql.Tx.QueryRowContext .* in handler bad is racy.* \(IDEM005\)`
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, d.MessageId)
	return err
}

func good(ctx context.Context, tx *sql.Tx, d amqp.Delivery) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.UserId)
	return err
}
