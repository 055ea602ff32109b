package idem003

import (
	"context"
	"database/sql"
	"errors"
	"log"

	"github.com/hibiken/asynq"
)

// A function with deferred calls returns through its result slots (return
// nil stores nil, runs the defers, returns the slot): its returns are read
// by what they stored. A lookup whose not-found error is classified on
// purpose (err != nil && !errors.Is(err, errNoPayment)) goes on where a
// found row goes on too: what follows is no duplicate's side.

var errNoPayment = errors.New("payment not found")

type ledger struct {
	db     *sql.DB
	client *asynq.Client
}

func (l *ledger) payment(ctx context.Context, tx *sql.Tx, order string) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM payments WHERE order_id = $1`, order).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errNoPayment
	}
	return id, err
}

// settle records the payment in a transaction rolled back by a defer, then
// enqueues the receipt and only logs a failure.
func (l *ledger) settle(ctx context.Context, order string) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	id, err := l.payment(ctx, tx, order)
	if err != nil && !errors.Is(err, errNoPayment) {
		return err
	}
	if errors.Is(err, errNoPayment) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO payments (order_id) VALUES ($1) ON CONFLICT (order_id) DO NOTHING`, order); err != nil {
			return err
		}
	} else {
		if _, err := tx.ExecContext(ctx, `UPDATE payments SET status = 'settled' WHERE id = $1`, id); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if err := enqueueReceipt(l.client, receipt{Order: order}); err != nil {
		log.Printf("receipt for %s: %v", order, err)
	}
	return nil
}

// settleTask loses the receipt when its enqueue fails.
func (l *ledger) settleTask(ctx context.Context, t *asynq.Task) error {
	if err := l.settle(ctx, string(t.Payload())); err != nil {
		return err
	}
	return nil // want `handler ledger.settleTask returns success when .*enqueueReceipt \(inside idem003.ledger.settle, which reports success\) fails`
}

// settleDeferred is a handler with a deferred call of its own.
func (l *ledger) settleDeferred(ctx context.Context, t *asynq.Task) error {
	defer log.Printf("settled %s", t.Payload())
	if err := enqueueReceipt(l.client, receipt{Order: string(t.Payload())}); err != nil {
		log.Print(err)
	}
	return nil // want `handler ledger.settleDeferred returns success when .*enqueueReceipt fails`
}
