// Package pgxguard is a stub of github.com/idemkit/idem@28899d2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pgxguard

import (
	"context"
	"github.com/idemkit/idem/guard"
	pgx "github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type DB interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func New(db DB, opts ...guard.Option) (*Store, error) { return nil, nil }

type Store struct {
	*guard.SQLEngine
}

func (s *Store) With(opts ...guard.Option) (*Store, error) { return nil, nil }

func (s *Store) Do(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, tx pgx.Tx) error) (guard.Outcome, error) {
	return 0, nil
}
