package orders

import (
	"context"
	"database/sql"
	"errors"
)

// applyRecordOrder applies the effect of m, a message of the record_order
// consumer, in tx, the transaction that also records its dedup row, so both
// commit or neither. It must do all its work through tx: the store retries the
// transaction after serialization failures and deadlocks, calling it again.
// Returning guard.Reject(err) refuses the message for good.
//
// Wire it up with
//
//	h := NewRecordOrderHandler(store, applyRecordOrder)
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even empty,
// if the function lives elsewhere.)
func applyRecordOrder(ctx context.Context, tx *sql.Tx, m *Placed) error {
	// TODO: apply the effect of m through tx.
	return errors.New("record_order: apply not implemented")
}

// The handler's apply func type checks the signature of applyRecordOrder.
var _ RecordOrderFunc = applyRecordOrder
