package orders

import (
	"context"
	"database/sql"
)

// UpdateStats counts the event into its day's row of its metric (count
// + 1, total + amount), in tx, the transaction that also records the dedup
// row. The key is the event id plus the aggregation key (day, metric): an
// event feeding several metrics counts once in each, and a resent event in
// none twice.
func (s *Service) UpdateStats(ctx context.Context, tx *sql.Tx, m *UpdateStats) error {
	if _, err := tx.ExecContext(ctx, s.statsSQL, m.Day, m.Metric, m.Amount); err != nil {
		return err
	}
	return s.afterEffect(ctx)
}
