package pgxguard

import (
	"cmp"
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/guard/internal/storekit"
)

// Pipelining. A claim is a transaction's first statement, so Do and Claim
// would wait for BEGIN's answer before sending it: one round trip that
// carries nothing. On a *pgxpool.Pool or a *pgx.Conn the store queues BEGIN
// ISOLATION LEVEL READ COMMITTED with pgx.Batch.BeginTx and the claim's
// INSERT after it, and sends both in one round trip; the batch's
// transaction (pgx.BatchResults.Tx, a pgx.Tx like any other, holding its
// pooled connection until it ends) is the one apply gets. Everything else
// of Do — READ COMMITTED, the retries of serialization failures and
// deadlocks, the claim first — is unchanged. Another DB is used through
// BeginTx: a wrapper's batches might run BEGIN without handing back the
// transaction, which would leave its connection inside it.

// batchSender sends pgx batches whose BeginTx begins a transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pipelined is the backend of a store on a *pgxpool.Pool or a *pgx.Conn.
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
	if tx == nil { // not a pgx batch that begins: never for Pool and Conn
		return nil, 0, errors.Join(errors.New("pgxguard: the batch began no transaction"), br.Close())
	}
	_, berr := br.Exec()
	tag, qerr := br.Exec()
	cerr := br.Close()
	if err := cmp.Or(berr, qerr, cerr); err != nil {
		tx.Rollback(context.WithoutCancel(ctx)) // ErrTxClosed when BEGIN failed
		return nil, 0, err
	}
	return txn{tx}, tag.RowsAffected(), nil
}
