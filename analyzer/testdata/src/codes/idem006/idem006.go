// Package idem006: the examples of IDEM006's documentation.
package idem006

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
)

func bad(ctx context.Context, db *sql.DB, d amqp.Delivery, n int, user string) error {
	res, err := db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 1 {
		_, err = db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user) // want `dedup record sql.DB.ExecContext .* and effect sql.DB.ExecContext .* in handler bad are in different transactions.* \(IDEM006\)`
	}
	return err
}

func good(ctx context.Context, db *sql.DB, d amqp.Delivery, n int, user string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 1 {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user); err != nil {
			return err
		}
	}
	return tx.Commit()
}
