// Package bunx: bun inserts from handlers. (*bun.InsertQuery).Exec and
// Scan are plain inserts: the engine does not read the query chain yet, so
// an insert that .On("CONFLICT DO NOTHING") or .Ignore() makes a dedup
// claim is still an effect (bunconflict has that case).
package bunx

import (
	"context"
	"database/sql"

	"github.com/hibiken/asynq"
	"github.com/uptrace/bun"

	"shop"
)

type Points struct {
	User string
	Qty  int
}

type Worker struct {
	DB  *bun.DB
	SQL *sql.DB
}

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	if _, err := w.DB.NewInsert().Model(&Points{User: o.User, Qty: o.Qty}).Exec(ctx); err != nil { // want `effect bun.InsertQuery.Exec in handler Worker.ProcessTask is not guarded by a dedup check`
		return err
	}
	var id int64
	return w.DB.NewInsert().Model(&Points{User: o.User}).Returning("id").Scan(ctx, &id) // want `IDEM001`
}

// guarded claims the order id first, in the transaction of the insert.
func guarded(db *bun.DB) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, err := shop.Decode(t.Payload())
		if err != nil {
			return nil
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "points", o.ID)
		if err != nil || !fresh {
			return err
		}
		if _, err := tx.NewInsert().Model(&Points{User: o.User, Qty: o.Qty}).Exec(ctx); err != nil {
			return err
		}
		return tx.Commit()
	}
}
