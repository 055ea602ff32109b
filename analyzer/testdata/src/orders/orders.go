package orders

// Package orders imitates idemgen's output: a generated message type and
// handler whose Handle runs the apply function inside store.Do.

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/idemkit/idem/guard"
)

var _ = guard.SupportPackageIsVersion1

type DeductInventory struct {
	OrderID  string `json:"order_id"`
	Sku      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

func (m *DeductInventory) IdempotencyKey() (string, error) {
	var b guard.KeyBuilder
	b.String(m.OrderID)
	b.String(m.Sku)
	return b.Key(), nil
}

type DeductInventoryFunc func(ctx context.Context, tx *sql.Tx, m *DeductInventory) error

type DeductInventoryHandler struct {
	store *guard.SQLStore
	apply DeductInventoryFunc
}

func NewDeductInventoryHandler(store *guard.SQLStore, apply DeductInventoryFunc, opts ...guard.Option) *DeductInventoryHandler {
	return &DeductInventoryHandler{store: store, apply: apply}
}

func (h *DeductInventoryHandler) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	var m DeductInventory
	if err := json.Unmarshal(body, &m); err != nil {
		return 0, guard.ErrInvalidMessage
	}
	return h.HandleMessage(ctx, &m)
}

func (h *DeductInventoryHandler) HandleMessage(ctx context.Context, m *DeductInventory) (guard.Outcome, error) {
	key, err := m.IdempotencyKey()
	if err != nil {
		return 0, err
	}
	return h.store.Do(ctx, "deduct_inventory", key, nil, func(ctx context.Context, tx *sql.Tx) error {
		return h.apply(ctx, tx, m)
	})
}
