// Package microsubx: go-micro server subscribers. A subscriber gets the
// decoded message, no broker type: RegisterSubscriber makes it a handler,
// acked when it returns nil. Found by the whole-program mode only (the
// modular analyzer does not apply Register rules yet).
package microsubx

import (
	"context"
	"database/sql"

	"go-micro.dev/v4"
	microv5 "go-micro.dev/v5"

	"shop"
)

type OrderPlaced struct {
	ID    string
	User  string
	Qty   int
	Phone string
}

type Points struct{ DB *sql.DB }

func (p *Points) Handle(ctx context.Context, e *OrderPlaced) error {
	if err := shop.AddPoints(ctx, p.DB, e.User, e.Qty); err != nil { // want `effect shop.AddPoints .* in handler Points.Handle is not guarded by a dedup check`
		return err
	}
	return shop.SendSMS(ctx, e.Phone, "hi") // want `IDEM001`
}

func register(service micro.Service, db *sql.DB) error {
	p := &Points{DB: db}
	if err := micro.RegisterSubscriber("orders", service.Server(), p.Handle); err != nil {
		return err
	}
	return micro.RegisterSubscriber("orders.stock", service.Server(), func(ctx context.Context, e *OrderPlaced) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "stock", e.ID)
		if err != nil || !fresh {
			return err
		}
		if err := shop.AddPoints(ctx, tx, e.User, e.Qty); err != nil {
			return err
		}
		return tx.Commit()
	})
}

func registerV5(service microv5.Service, db *sql.DB) error {
	return microv5.RegisterSubscriber("orders.sms", service.Server(), func(ctx context.Context, e *OrderPlaced) error {
		return shop.SendSMS(ctx, e.Phone, "hi") // want `IDEM001`
	})
}
