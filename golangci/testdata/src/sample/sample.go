package sample

import (
	"context"
	"database/sql"
)

//idem:handler
func deduct(ctx context.Context, db *sql.DB, sku string) error {
	_, err := db.ExecContext(ctx, "UPDATE stock SET n = n - 1 WHERE sku = $1", sku) // want `IDEM001`
	return err
}

//idem:handler
func deductOnce(ctx context.Context, db *sql.DB, id, sku string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING", id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE stock SET n = n - 1 WHERE sku = $1", sku); err != nil {
		return err
	}
	return tx.Commit()
}
