package orders

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemkit/idem/guard"
)

// AddPoints credits the order's points to its buyer, in tx, the
// transaction that also records the dedup row: points = points + n runs
// once per order however often the message comes. An unknown user is
// rejected for good (guard.Reject).
func (s *Service) AddPoints(ctx context.Context, tx *sql.Tx, m *AddPoints) error {
	res, err := tx.ExecContext(ctx, s.pointsSQL, m.Points, m.UserID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return guard.Reject(fmt.Errorf("order %s: unknown user %s", m.OrderID, m.UserID))
	}
	return s.afterEffect(ctx)
}
