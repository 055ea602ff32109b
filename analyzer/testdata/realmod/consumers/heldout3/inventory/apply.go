package inventory

import (
	"context"
	"database/sql"
)

// claimInbox records the message in the inbox inside tx and reports whether
// it was new.
func claimInbox(ctx context.Context, tx *sql.Tx, consumer, id string) (bool, error) {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT (consumer, message_id) DO NOTHING`,
		consumer, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// deductStock takes qty off the shelf; the caller owns the transaction.
func deductStock(ctx context.Context, tx *sql.Tx, sku string, qty int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, qty, sku)
	return err
}

// inTx runs fn in a transaction and commits it when fn returns nil.
func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
