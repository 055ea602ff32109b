// Package cqrsx: watermill CQRS handlers. The handle func gets a decoded
// event or command, not a message: NewEventHandler, NewCommandHandler and
// NewGroupEventHandler make it a handler; its nil error acks.
package cqrsx

import (
	"context"
	"database/sql"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"

	"shop"
)

type OrderPlaced struct {
	ID    string
	User  string
	SKU   string
	Qty   int
	Phone string
}

type PlaceOrder struct {
	ID  string
	SKU string
	Qty int
}

type Handlers struct{ DB *sql.DB }

func (h *Handlers) OnOrderPlaced(ctx context.Context, e *OrderPlaced) error {
	if err := shop.AddPoints(ctx, h.DB, e.User, e.Qty); err != nil { // want `effect shop.AddPoints .* in handler Handlers.OnOrderPlaced is not guarded by a dedup check`
		return err
	}
	return shop.SendSMS(ctx, e.Phone, "thanks") // want `IDEM001`
}

// PlaceOrder claims the command id with the stock deduction.
func (h *Handlers) PlaceOrder(ctx context.Context, c *PlaceOrder) error {
	tx, err := h.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "orders", c.ID)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, c.SKU, c.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

func handlers(db *sql.DB) ([]cqrs.EventHandler, []cqrs.CommandHandler, cqrs.GroupEventHandler) {
	h := &Handlers{DB: db}
	events := []cqrs.EventHandler{
		cqrs.NewEventHandler("points", h.OnOrderPlaced),
	}
	commands := []cqrs.CommandHandler{
		cqrs.NewCommandHandler("place", h.PlaceOrder),
	}
	group := cqrs.NewGroupEventHandler(func(ctx context.Context, e *OrderPlaced) error {
		return shop.DeductStock(ctx, db, e.SKU, e.Qty) // want `IDEM001`
	})
	return events, commands, group
}
