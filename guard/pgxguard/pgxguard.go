// Package pgxguard is the guard store for PostgreSQL through pgx v5's native
// interface (a *pgxpool.Pool), for code generated with sql_package: pgx/v5.
//
// It shares the SQL engine of package guard (guard.SQLEngine) with the
// database/sql store: the same statements, the same state table, the same
// guarantees (see package guard). Only the transaction handed to a
// transactional effect differs: a pgx.Tx instead of a *sql.Tx.
package pgxguard

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemkit/idem/guard"
)

// DB is what the store needs of a pgx client; *pgxpool.Pool has it. A single
// *pgx.Conn has it too, but is not safe for concurrent handlers.
type DB interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store is the guard store on pgx. It embeds the shared SQL engine, whose
// methods (Claim, Run, Inspect, Resolve, Forget, Purge, CreateTable) it has.
type Store struct {
	*guard.SQLEngine
	db DB
}

var _ guard.Store = (*Store)(nil)

// New returns a store keeping its dedup records in db (PostgreSQL). The table
// (guard.WithTable, default idem_keys) must exist: apply idemgen's
// migrations, or call CreateTable.
func New(db DB, opts ...guard.Option) (*Store, error) {
	if db == nil {
		return nil, errors.New("pgxguard: New: nil DB")
	}
	e, err := guard.NewSQLEngine(backend{db}, guard.Postgres, opts...)
	if err != nil {
		return nil, err
	}
	return &Store{SQLEngine: e, db: db}, nil
}

// With returns a store sharing s's pool, with opts applied on top of s's
// options (see guard.SQLEngine.With).
func (s *Store) With(opts ...guard.Option) (*Store, error) {
	e, err := s.SQLEngine.With(opts...)
	if err != nil {
		return nil, err
	}
	return &Store{SQLEngine: e, db: s.db}, nil
}

// Do runs a transactional effect: the store begins a READ COMMITTED
// transaction, claims the key as its first statement, runs apply with the
// transaction, and commits both or neither (see guard.SQLEngine.Do). Serialization
// failures and deadlocks retry the whole transaction, so apply must use only tx.
func (s *Store) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx pgx.Tx) error) (guard.Outcome, error) {
	return s.SQLEngine.Do(ctx, consumer, key, fp, func(ctx context.Context, tx guard.SQLTx) error {
		return apply(ctx, tx.(txn).tx)
	})
}

type backend struct{ db DB }

func (b backend) Begin(ctx context.Context) (guard.SQLTx, error) {
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

func (b backend) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return b.db.QueryRow(ctx, q, args...)
}

type txn struct{ tx pgx.Tx }

func (t txn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (t txn) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return t.tx.QueryRow(ctx, q, args...)
}

func (t txn) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t txn) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
