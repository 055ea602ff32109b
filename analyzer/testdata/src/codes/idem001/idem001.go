// Package idem001: the examples of IDEM001's documentation.
package idem001

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
)

func bad(ctx context.Context, db *sql.DB, d amqp.Delivery, qty int, sku string) error {
	_, err := db.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, qty, sku) // want `effect sql.DB.ExecContext "UPDATE stock SET qty = qty - \$1 WHERE sku = \$2" in handler bad is not guarded by a dedup check \(IDEM001\)`
	return err
}

func good(ctx context.Context, store *guard.SQLStore, d amqp.Delivery, qty int, sku string) error {
	_, err := store.Do(ctx, "deduct_inventory", d.MessageId, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, qty, sku)
		return err
	})
	return err
}
