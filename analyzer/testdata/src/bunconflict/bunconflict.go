// Package bunconflict: a bun insert that ON CONFLICT DO NOTHING (or
// Ignore()) makes a dedup claim, decided by its rows affected; the engine
// reads the query chain the InsertQuery was built by (On, Ignore, Model) as
// it reads gorm's clauses. An ON CONFLICT DO UPDATE is still an effect.
package bunconflict

import (
	"context"

	"github.com/hibiken/asynq"
	"github.com/uptrace/bun"

	"shop"
)

type Processed struct {
	ID string `bun:",pk"`
}

func claimed(db *bun.DB) asynq.HandlerFunc {
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
		res, err := tx.NewInsert().Model(&Processed{ID: o.ID}).On("CONFLICT (id) DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // a duplicate
		}
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return err
		}
		return tx.Commit()
	}
}

func ignored(db *bun.DB) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, _ := shop.Decode(t.Payload())
		res, err := db.NewInsert().Model(&Processed{ID: o.ID}).Ignore().Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return shop.SendSMS(ctx, o.Phone, "hi")
	}
}

// upsert is an insert whose conflict updates: still an effect.
func upsert(db *bun.DB) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, _ := shop.Decode(t.Payload())
		_, err := db.NewInsert().Model(&Processed{ID: o.ID}).On("CONFLICT (id) DO UPDATE").Exec(ctx) // want `IDEM001`
		return err
	}
}
