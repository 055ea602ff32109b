// Package pgxguard is the guard store for PostgreSQL through pgx v5's native
// interface (a *pgxpool.Pool), for code generated with sql_package: pgx/v5.
//
// It shares package guard's SQL engine with the database/sql store
// (guard.SQLStore): the same statements, the same state table, the same
// guarantees (see package guard). Only the transaction handed to a
// transactional effect differs: a pgx.Tx instead of a *sql.Tx.
package pgxguard

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// DB is what the store needs of a pgx client; *pgxpool.Pool has it. A single
// *pgx.Conn has it too, but is not safe for concurrent handlers.
type DB interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Store is the guard store on pgx. Its methods are those of guard.SQLStore,
// with a pgx.Tx for transactional effects.
type Store struct {
	e  storekit.SQLEngine
	db DB
}

var _ guard.Store = (*Store)(nil)

// New returns a store keeping its dedup records in db (PostgreSQL). The table
// (guard.WithTable, default idem_keys) must exist: apply idemgen's
// migrations, or call CreateTable. When db is a *pgxpool.Pool or a
// *pgx.Conn, the store sends BEGIN and a claim in one round trip
// (pgx.Batch.BeginTx); any other DB (a wrapper of its own, whose batches
// might not begin the transaction) begins through BeginTx, one round trip
// more per message.
func New(db DB, opts ...guard.Option) (*Store, error) {
	if db == nil {
		return nil, errors.New("pgxguard: New: nil DB")
	}
	var b storekit.Backend = backend{db}
	switch bs := db.(type) {
	case *pgxpool.Pool:
		b = pipelined{backend{db}, bs}
	case *pgx.Conn:
		b = pipelined{backend{db}, bs}
	}
	e, err := storekit.NewSQLEngine(b, guard.Postgres, opts...)
	if err != nil {
		return nil, err
	}
	return &Store{e: e, db: db}, nil
}

// With returns a store sharing s's pool, with opts applied on top of s's
// options: a consumer's lease, delivery or retention over the store's
// (generated handlers use it).
func (s *Store) With(opts ...guard.Option) (*Store, error) {
	e, err := storekit.EngineWith(s.e, opts...)
	if err != nil {
		return nil, err
	}
	return &Store{e: e, db: s.db}, nil
}

// Config returns the store's resolved options.
func (s *Store) Config() guard.Config { return s.e.Config() }

// Dialect returns guard.Postgres.
func (s *Store) Dialect() guard.Dialect { return s.e.Dialect() }

// CreateTable creates the dedup table if it does not exist
// (guard.CreateTableSQL). Production schemas should come from idemgen's
// migrations; this is for tests and quick starts.
func (s *Store) CreateTable(ctx context.Context) error { return s.e.CreateTable(ctx) }

// Claim claims key for an external effect (see guard.SQLStore.Claim).
func (s *Store) Claim(ctx context.Context, consumer, key string, fp []byte) (*guard.Lease, error) {
	return s.e.Claim(ctx, consumer, key, fp)
}

// Run claims key, runs the external effect apply under the lease, and
// records the outcome (see guard.SQLStore.Run).
func (s *Store) Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *guard.Lease) error) (guard.Outcome, error) {
	return s.e.Run(ctx, consumer, key, fp, apply)
}

// ClaimBatch claims the keys of a batch for external effects with one
// statement (see guard.SQLStore.ClaimBatch).
func (s *Store) ClaimBatch(ctx context.Context, msgs []guard.Message) []guard.Claimed {
	return s.e.ClaimBatch(ctx, msgs)
}

// RunBatch claims the keys of a batch with one statement and runs each
// acquired key's effect under its lease (see guard.SQLStore.RunBatch).
func (s *Store) RunBatch(ctx context.Context, msgs []guard.LeaseMessage) []guard.Result {
	return s.e.RunBatch(ctx, msgs)
}

// Inspect returns the record of key, or nil when there is none or it expired.
func (s *Store) Inspect(ctx context.Context, consumer, key string) (*guard.Record, error) {
	return s.e.Inspect(ctx, consumer, key)
}

// Resolve marks key done with result, whatever its state (see
// guard.SQLStore.Resolve).
func (s *Store) Resolve(ctx context.Context, consumer, key string, result []byte) error {
	return s.e.Resolve(ctx, consumer, key, result)
}

// Forget deletes the record of key, whatever its state.
func (s *Store) Forget(ctx context.Context, consumer, key string) error {
	return s.e.Forget(ctx, consumer, key)
}

// Purge deletes expired records in bounded batches and returns how many
// (see guard.SQLStore.Purge).
func (s *Store) Purge(ctx context.Context) (int64, error) { return s.e.Purge(ctx) }

// KeyIdentity returns the key identity recorded for consumer
// (guard.WithKeyIdentity), or "" when none is.
func (s *Store) KeyIdentity(ctx context.Context, consumer string) (string, error) {
	return s.e.KeyIdentity(ctx, consumer)
}

// ForgetKeyIdentity deletes the key identity recorded for consumer: the
// next claim records the one it is configured with.
func (s *Store) ForgetKeyIdentity(ctx context.Context, consumer string) error {
	return s.e.ForgetKeyIdentity(ctx, consumer)
}

// Do runs a transactional effect: the store begins a READ COMMITTED
// transaction, claims the key as its first statement, runs apply with the
// transaction, and commits both or neither (see the guard package doc). Serialization
// failures and deadlocks retry the whole transaction, so apply must use only tx.
func (s *Store) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx pgx.Tx) error) (guard.Outcome, error) {
	return s.e.Do(ctx, consumer, key, fp, func(ctx context.Context, tx storekit.Tx) error {
		return apply(ctx, tx.(txn).tx)
	})
}

// DoBatch runs the transactional effects of a batch of messages in one
// READ COMMITTED transaction: one statement claims every key, the fresh
// keys' effects run in the order of the batch, and one commit ends it (see
// the guard package doc on batches). It returns
// one guard.Result per message, in order.
func (s *Store) DoBatch(ctx context.Context, msgs []guard.TxMessage[pgx.Tx]) []guard.Result {
	inner := make([]guard.TxMessage[storekit.Tx], len(msgs))
	for i, m := range msgs {
		apply := m.Apply
		inner[i] = guard.TxMessage[storekit.Tx]{Consumer: m.Consumer, Key: m.Key, Fingerprint: m.Fingerprint,
			Apply: func(ctx context.Context, tx storekit.Tx) error { return apply(ctx, tx.(txn).tx) }}
	}
	return s.e.DoBatch(ctx, inner)
}

type backend struct{ db DB }

func (b backend) Begin(ctx context.Context) (storekit.Tx, error) {
	tx, err := b.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return nil, err
	}
	return txn{tx}, nil
}

func (b backend) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := b.db.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (b backend) Query(ctx context.Context, q string, args ...any) (storekit.Rows, error) {
	rows, err := b.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgxRows{rows}, nil
}

func (b backend) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return b.db.QueryRow(ctx, q, args...)
}

type txn struct{ tx pgx.Tx }

func (t txn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (t txn) Query(ctx context.Context, q string, args ...any) (storekit.Rows, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgxRows{rows}, nil
}

// pgxRows adapts pgx.Rows to storekit.Rows.
type pgxRows struct{ pgx.Rows }

func (r pgxRows) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}

func (t txn) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return t.tx.QueryRow(ctx, q, args...)
}

func (t txn) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t txn) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
