// Package handlers has two findings: an unguarded SQL write, and an effect
// of the billing dependency reached through its facts.
package handlers

import (
	"context"
	"database/sql"

	"example.com/vetmodule/billing"
)

//idem:handler
func AddPoints(ctx context.Context, db *sql.DB, user string, n int) error {
	_, err := db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user)
	return err
}

//idem:handler
func ChargeOrder(ctx context.Context, account string, cents int) error {
	return billing.Charge(ctx, account, cents)
}

//idem:handler
func Guarded(ctx context.Context, db *sql.DB, id, user string, n int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user); err != nil {
		return err
	}
	return tx.Commit()
}
