package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SQLStore is the store for database/sql: PostgreSQL through pgx's stdlib
// driver, MySQL/MariaDB through go-sql-driver/mysql, SQLite through
// modernc.org/sqlite (open it with SQLiteDSN). It embeds the SQLEngine, whose
// methods (Claim, Run, Inspect, Resolve, Forget, Purge, CreateTable) it has.
type SQLStore struct {
	*SQLEngine
	db *sql.DB
}

// NewSQLStore returns a store keeping its dedup records in db, a database of
// dialect d. The table (WithTable, default idem_keys) must exist: apply
// idemgen's migrations, or call CreateTable.
func NewSQLStore(db *sql.DB, d Dialect, opts ...Option) (*SQLStore, error) {
	if db == nil {
		return nil, errors.New("guard: NewSQLStore: nil *sql.DB")
	}
	e, err := NewSQLEngine(dbBackend{db: db, dialect: d}, d, opts...)
	if err != nil {
		return nil, err
	}
	return &SQLStore{SQLEngine: e, db: db}, nil
}

// DB returns the store's database.
func (s *SQLStore) DB() *sql.DB { return s.db }

// Do runs a transactional effect: the store begins a transaction, claims the
// key as its first statement, runs apply with the transaction, and commits
// both or neither (see SQLEngine.Do). It returns Applied, Duplicate, or the
// errors of the error table.
func (s *SQLStore) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx *sql.Tx) error) (Outcome, error) {
	return s.SQLEngine.Do(ctx, consumer, key, fp, func(ctx context.Context, tx SQLTx) error {
		return apply(ctx, tx.(dbTx).tx)
	})
}

type dbBackend struct {
	db      *sql.DB
	dialect Dialect
}

func (b dbBackend) Begin(ctx context.Context) (SQLTx, error) {
	var opts *sql.TxOptions
	if b.dialect != SQLite {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := b.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return dbTx{tx}, nil
}

func (b dbBackend) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	return execRows(b.db.ExecContext(ctx, q, args...))
}

func (b dbBackend) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return b.db.QueryRowContext(ctx, q, args...)
}

type dbTx struct{ tx *sql.Tx }

func (t dbTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	return execRows(t.tx.ExecContext(ctx, q, args...))
}

func (t dbTx) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t dbTx) Commit(context.Context) error   { return t.tx.Commit() }
func (t dbTx) Rollback(context.Context) error { return t.tx.Rollback() }

func execRows(r sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n, err := r.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}
