// Package bun is a stub of github.com/uptrace/bun@v1.3.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package bun

import (
	"context"
	"database/sql"
)

type DB struct {
	*noCopyState
}

type noCopyState struct {
	*sql.DB
}

func (db *DB) NewInsert() *InsertQuery { return nil }

func (db *DB) BeginTx(ctx context.Context, opts *sql.TxOptions) (Tx, error) { return Tx{}, nil }

type Tx struct {
	*sql.Tx
}

func (tx Tx) NewInsert() *InsertQuery { return nil }

type InsertQuery struct {
}

func (q *InsertQuery) Model(model any) *InsertQuery { return nil }

func (q *InsertQuery) Returning(query string, args ...any) *InsertQuery { return nil }

func (q *InsertQuery) Ignore() *InsertQuery { return nil }

func (q *InsertQuery) On(s string, args ...any) *InsertQuery { return nil }

func (q *InsertQuery) Scan(ctx context.Context, dest ...any) error { return nil }

func (q *InsertQuery) Exec(ctx context.Context, dest ...any) (sql.Result, error) { return nil, nil }
