// Package adapters wires generated-style guarded handlers to the idem broker
// adapters (amqpguard, jetstreamguard, kafkaguard).
package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/pgxguard"
)

// DeductInventory is written the way idemgen emits a message type.
type DeductInventory struct {
	OrderID  string `json:"order_id"`
	Sku      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// IdempotencyKey encodes the business key.
func (m *DeductInventory) IdempotencyKey() (string, error) {
	if m.OrderID == "" || m.Sku == "" {
		return "", guard.ErrEmptyKey
	}
	var b guard.KeyBuilder
	b.String(m.OrderID)
	b.String(m.Sku)
	return b.Key(), nil
}

// DeductInventoryFunc is the apply function.
type DeductInventoryFunc func(ctx context.Context, tx pgx.Tx, m *DeductInventory) error

// DeductInventoryHandler is a generated-style guarded handler.
type DeductInventoryHandler struct {
	store *pgxguard.Store
	apply DeductInventoryFunc
}

var _ = guard.SupportPackageIsVersion1

// NewDeductInventoryHandler returns the guarded handler.
func NewDeductInventoryHandler(store *pgxguard.Store, apply DeductInventoryFunc) *DeductInventoryHandler {
	return &DeductInventoryHandler{store: store, apply: apply}
}

// Handle decodes, validates, claims, applies and records.
func (h *DeductInventoryHandler) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	var m DeductInventory
	if err := json.Unmarshal(body, &m); err != nil {
		return 0, fmt.Errorf("%w: %v", guard.ErrInvalidMessage, err)
	}
	key, err := m.IdempotencyKey()
	if err != nil {
		return 0, err
	}
	var fp guard.FingerprintBuilder
	fp.Int("quantity", m.Quantity)
	return h.store.Do(ctx, "deduct_inventory", key, fp.Sum(), func(ctx context.Context, tx pgx.Tx) error {
		return h.apply(ctx, tx, &m)
	})
}

// ApplyDeduct is the user's apply function.
func ApplyDeduct(ctx context.Context, tx pgx.Tx, m *DeductInventory) error {
	_, err := tx.Exec(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, m.Quantity, m.Sku)
	return err
}
