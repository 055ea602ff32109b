package stats

import (
	"context"
	"database/sql"
	"errors"
)

// UpdateStats applies the effect of m, a message of the update_stats consumer,
// in tx, the transaction that also records its dedup row, so both commit or
// neither. It must do all its work through tx: the store retries the
// transaction after serialization failures and deadlocks, calling it again.
// Returning guard.Reject(err) refuses the message for good.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) UpdateStats(ctx context.Context, tx *sql.Tx, m *UpdateStats) error {
	// TODO: apply the effect of m through tx.
	return errors.New("update_stats: effect not implemented")
}
