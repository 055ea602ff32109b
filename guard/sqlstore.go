package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/idemkit/idem/guard/internal/core"
)

// SQLStore is the store for database/sql: PostgreSQL through pgx's stdlib
// driver, MySQL/MariaDB through go-sql-driver/mysql, SQLite through
// modernc.org/sqlite (open it with SQLiteDSN). Its methods besides Do,
// DoBatch and With (Claim, Run, ClaimBatch, RunBatch, Inspect, Resolve,
// Forget, Purge, KeyIdentity, ForgetKeyIdentity, CreateTable) are those of
// the SQL engine it shares with guard/pgxguard.
type SQLStore struct {
	*sqlEngine
	db *sql.DB
}

// NewSQLStore returns a store keeping its dedup records in db, a database of
// dialect d. The table (WithTable, default idem_keys) must exist: apply
// idemgen's migrations, or call CreateTable.
func NewSQLStore(db *sql.DB, d Dialect, opts ...Option) (*SQLStore, error) {
	if db == nil {
		return nil, errors.New("guard: NewSQLStore: nil *sql.DB")
	}
	e, err := newSQLEngine(&dbBackend{db: db, dialect: d}, d, opts...)
	if err != nil {
		return nil, err
	}
	return &SQLStore{sqlEngine: e, db: db}, nil
}

// With returns a store sharing s's database and prepared statements, with
// opts applied on top of s's options (a consumer's lease, delivery or retention over the store's:
// generated handlers use it).
func (s *SQLStore) With(opts ...Option) (*SQLStore, error) {
	e, err := s.sqlEngine.With(opts...)
	if err != nil {
		return nil, err
	}
	return &SQLStore{sqlEngine: e, db: s.db}, nil
}

// DB returns the store's database.
func (s *SQLStore) DB() *sql.DB { return s.db }

// Do runs a transactional effect: the store begins a transaction, claims the
// key as its first statement, runs apply with the transaction, and commits
// both or neither (see the package doc). It returns Applied, Duplicate, or the
// errors of the error table.
func (s *SQLStore) Do(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, tx *sql.Tx) error) (Outcome, error) {
	return s.sqlEngine.Do(ctx, consumer, key, fp, func(ctx context.Context, tx core.Tx) error {
		return apply(ctx, tx.(dbTx).tx)
	})
}

// DoBatch runs the transactional effects of a batch of messages in one
// transaction: one statement claims every key, the fresh keys' effects run
// in the order of the batch, and one commit ends it (see the package doc
// on batches). It returns one Result per message, in
// order.
func (s *SQLStore) DoBatch(ctx context.Context, msgs []TxMessage[*sql.Tx]) []Result {
	inner := make([]TxMessage[core.Tx], len(msgs))
	for i, m := range msgs {
		apply := m.Apply
		inner[i] = TxMessage[core.Tx]{Consumer: m.Consumer, Key: m.Key, Fingerprint: m.Fingerprint,
			Apply: func(ctx context.Context, tx core.Tx) error { return apply(ctx, tx.(dbTx).tx) }}
	}
	return s.sqlEngine.DoBatch(ctx, inner)
}

// dbBackend runs the engine's statements as prepared statements, prepared
// once per connection by database/sql: without them go-sql-driver/mysql pays
// a prepare and a close round trip per statement, and SQLite re-parses each.
type dbBackend struct {
	db      *sql.DB
	dialect Dialect
	stmts   sync.Map // query → *sql.Stmt
	// unprepared holds queries a transaction had to prepare for itself; the
	// next Begin, which holds no connection yet, prepares them on the pool.
	unprepared sync.Map // query → struct{}
}

func (b *dbBackend) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := b.stmts.Load(q); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := b.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := b.stmts.LoadOrStore(q, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

func (b *dbBackend) Begin(ctx context.Context) (core.Tx, error) {
	b.unprepared.Range(func(q, _ any) bool {
		b.unprepared.Delete(q)
		b.stmt(ctx, q.(string)) // on failure the next transaction notes it again
		return true
	})
	var opts *sql.TxOptions
	if b.dialect != SQLite {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := b.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return dbTx{tx: tx, b: b}, nil
}

func (b *dbBackend) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if isOneOff(q) {
		return execRows(b.db.ExecContext(ctx, q, args...))
	}
	s, err := b.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	return execRows(s.ExecContext(ctx, args...))
}

func (b *dbBackend) Query(ctx context.Context, q string, args ...any) (core.Rows, error) {
	if isOneOff(q) {
		return b.db.QueryContext(ctx, q, args...)
	}
	s, err := b.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (b *dbBackend) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	s, err := b.stmt(ctx, q)
	if err != nil {
		return errRow{err}
	}
	return s.QueryRowContext(ctx, args...)
}

type dbTx struct {
	tx *sql.Tx
	b  *dbBackend
}

// stmt returns q prepared on the transaction's connection. It must not
// prepare on the pool: that needs a second connection while the transaction
// holds one, and when every connection is held by such a transaction (a pool
// of one, or a burst of first claims) none is ever freed. A query not
// prepared on the pool yet is prepared for this transaction alone and noted
// for the next Begin.
func (t dbTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := t.b.stmts.Load(q); ok {
		return t.tx.StmtContext(ctx, s.(*sql.Stmt)), nil
	}
	t.b.unprepared.Store(q, struct{}{})
	return t.tx.PrepareContext(ctx, q)
}

func (t dbTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if isOneOff(q) {
		return execRows(t.tx.ExecContext(ctx, q, args...))
	}
	s, err := t.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	return execRows(s.ExecContext(ctx, args...))
}

func (t dbTx) Query(ctx context.Context, q string, args ...any) (core.Rows, error) {
	if isOneOff(q) {
		return t.tx.QueryContext(ctx, q, args...)
	}
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (t dbTx) QueryRow(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return errRow{err}
	}
	return s.QueryRowContext(ctx, args...)
}

func (t dbTx) Commit(context.Context) error   { return t.tx.Commit() }
func (t dbTx) Rollback(context.Context) error { return t.tx.Rollback() }

// errRow is a row whose query could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

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
