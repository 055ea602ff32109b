package pgxguard

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/guard/internal/storekit"
)

// Pipelining. A claim is a transaction's first statement, so Do and Claim
// would wait for BEGIN's answer before sending it: one round trip that
// carries nothing. When the DB can send batches (*pgxpool.Pool and
// *pgx.Conn can), the store queues BEGIN ISOLATION LEVEL READ COMMITTED
// with pgx.Batch.BeginTx and the claim's INSERT after it, and sends both in
// one round trip; the batch's transaction (pgx.BatchResults.Tx, a pgx.Tx
// like any other, holding its pooled connection until it ends) is the one
// apply gets. Everything else of Do — READ COMMITTED, the retries of
// serialization failures and deadlocks, the claim first — is unchanged. A
// DB whose batches begin no transaction is used through BeginTx, one round
// trip more per claim.

// batchSender is a DB that sends pgx batches.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pipelined is the backend of a store whose DB sends batches.
type pipelined struct {
	backend
	s batchSender
}

// BeginExec implements storekit.ExecBeginner: BEGIN and query in one round
// trip.
func (b pipelined) BeginExec(ctx context.Context, query string, args ...any) (storekit.Tx, int64, error) {
	batch := &pgx.Batch{}
	batch.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	batch.Queue(query, args...)
	br := b.s.SendBatch(ctx, batch)
	tx := br.Tx()
	if tx == nil { // a DB whose batches cannot begin a transaction
		br.Close()
		return b.beginThenExec(ctx, query, args...)
	}
	_, berr := br.Exec()
	tag, qerr := br.Exec()
	cerr := br.Close()
	if err := errors.Join(berr, qerr, cerr); err != nil {
		tx.Rollback(context.WithoutCancel(ctx)) // ErrTxClosed when BEGIN failed
		return nil, 0, firstErr(berr, qerr, cerr)
	}
	return txn{tx}, tag.RowsAffected(), nil
}

// beginThenExec begins and runs query in two round trips.
func (b pipelined) beginThenExec(ctx context.Context, query string, args ...any) (storekit.Tx, int64, error) {
	tx, err := b.Begin(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("begin: %w", err)
	}
	n, err := tx.Exec(ctx, query, args...)
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, 0, err
	}
	return tx, n, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
