package orders

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemkit/idem/guard"
)

// DeductInventory takes the order's quantity out of stock, in tx, the
// transaction that also records the dedup row, so both commit or neither.
//
// The update is conditional: stock never goes below zero. When the SKU
// lacks the quantity (or is unknown) no row changes, and the order is
// rejected for good: guard.Reject keeps its key failed, so a redelivery is
// refused instead of deducting later from stock that came back meanwhile.
// The example's stock covers every order, so a rejection there is a bug.
func (s *Service) DeductInventory(ctx context.Context, tx *sql.Tx, m *DeductInventory) error {
	if m.Quantity <= 0 {
		return guard.Reject(fmt.Errorf("order %s: quantity %d of %s", m.OrderID, m.Quantity, m.Sku))
	}
	res, err := tx.ExecContext(ctx, s.deductSQL, m.Quantity, m.Sku, m.Quantity)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return guard.Reject(fmt.Errorf("order %s: %s out of stock for %d", m.OrderID, m.Sku, m.Quantity))
	}
	return s.afterEffect(ctx)
}
