package a

import (
	"context"
	"database/sql"
)

// The dedup insert last in a transaction the handler began: a duplicate
// returns without committing, so the points added before it are rolled
// back.
//
//idem:handler
func uniqueInsertLast(ctx context.Context, db *sql.DB, ev Event) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, ev.ID); err != nil {
		if isUniqueViolation(err) {
			return nil
		}
		return err
	}
	return tx.Commit()
}

// The same, but the duplicate side commits what came before it: the points
// are added again on every redelivery.
//
//idem:handler
func uniqueInsertLastCommitted(ctx context.Context, db *sql.DB, ev Event) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User); err != nil { // want `IDEM001`
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, ev.ID); err != nil {
		if isUniqueViolation(err) {
			return tx.Commit()
		}
		return err
	}
	return tx.Commit()
}

// On a pool, each statement commits on its own: the insert last guards
// nothing.
//
//idem:handler
func uniqueInsertLastPooled(ctx context.Context, db *sql.DB, ev Event) error {
	if _, err := db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User); err != nil { // want `IDEM001`
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, ev.ID); err != nil {
		if isUniqueViolation(err) {
			return nil
		}
		return err
	}
	return nil
}
