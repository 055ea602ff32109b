// Package asynqx: asynq task handlers (acked by returning nil).
package asynqx

import (
	"context"
	"database/sql"
	"log"

	"github.com/hibiken/asynq"

	"shop"
)

type Worker struct{ DB *sql.DB }

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return err
	}
	if err := shop.DeductStock(ctx, w.DB, o.SKU, o.Qty); err != nil { // want `effect shop.DeductStock .* in handler Worker.ProcessTask`
		return err
	}
	if err := shop.AddPoints(ctx, w.DB, o.User, o.Qty); err != nil { // want `IDEM001`
		return err
	}
	if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
		return err
	}
	return shop.BumpStats(ctx, w.DB, o.Day, o.GMV) // want `IDEM001`
}

func correct(db *sql.DB) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, err := shop.Decode(t.Payload())
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "orders", o.ID)
		if err != nil {
			return err
		}
		if !fresh {
			return nil
		}
		if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
			return err
		}
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return err
		}
		if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
			return err
		}
		return tx.Commit()
	}
}

func swallow(ctx context.Context, t *asynq.Task) error {
	o, _ := shop.Decode(t.Payload())
	if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
		log.Print(err)
		return nil // want `handler swallow returns success when shop.SendSMS fails`
	}
	return nil
}

func register(mux *asynq.ServeMux, db *sql.DB) {
	mux.HandleFunc("orders:points", func(ctx context.Context, t *asynq.Task) error {
		o, _ := shop.Decode(t.Payload())
		return shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	})
}
