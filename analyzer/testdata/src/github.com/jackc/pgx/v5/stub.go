// Package pgx is a stub of github.com/jackc/pgx/v5@v5.12.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pgx

import (
	"context"
	"errors"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

type Conn struct {
}

func (c *Conn) Begin(ctx context.Context) (Tx, error) { return nil, nil }

func (c *Conn) BeginTx(ctx context.Context, txOptions TxOptions) (Tx, error) { return nil, nil }

func (c *Conn) Close(ctx context.Context) error { return nil }

func (c *Conn) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}

func (c *Conn) Query(ctx context.Context, sql string, args ...any) (Rows, error) { return nil, nil }

func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) Row { return nil }

func (c *Conn) SendBatch(ctx context.Context, b *Batch) BatchResults { return nil }

func (c *Conn) CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error) {
	return 0, nil
}

func Connect(ctx context.Context, connString string) (*Conn, error) { return nil, nil }

func CopyFromRows(rows [][]any) CopyFromSource { return nil }

func CopyFromSlice(length int, next func(int) ([]any, error)) CopyFromSource { return nil }

type ConnConfig struct {
}

func ParseConfig(connString string) (*ConnConfig, error) { return nil, nil }

type Tx interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context) error
	Conn() *Conn
	CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error)
	Exec(ctx context.Context, sql string, arguments ...any) (commandTag pgconn.CommandTag, err error)
	LargeObjects() LargeObjects
	Prepare(ctx context.Context, name string, sql string) (*pgconn.StatementDescription, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
	Rollback(ctx context.Context) error
	SendBatch(ctx context.Context, b *Batch) BatchResults
}

type Row interface {
	Scan(dest ...any) error
}

type Rows interface {
	Close()
	CommandTag() pgconn.CommandTag
	Conn() *Conn
	Err() error
	FieldDescriptions() []pgconn.FieldDescription
	Next() bool
	RawValues() [][]byte
	Scan(dest ...any) error
	TypeMap() *pgtype.Map
	Values() ([]any, error)
}

type TxOptions struct {
	IsoLevel       TxIsoLevel
	AccessMode     TxAccessMode
	DeferrableMode TxDeferrableMode
	BeginQuery     string
	CommitQuery    string
}

type TxIsoLevel string

type TxAccessMode string

type TxDeferrableMode string

type Batch struct {
	QueuedQueries []*QueuedQuery
}

func (b *Batch) Queue(query string, arguments ...any) *QueuedQuery { return nil }

func (b *Batch) Len() int { return 0 }

type BatchResults interface {
	Close() error
	Exec() (pgconn.CommandTag, error)
	Query() (Rows, error)
	QueryRow() Row
	Tx() Tx
}

type QueuedQuery struct {
	SQL       string
	Arguments []any
}

type NamedArgs map[string]any

func BeginFunc(ctx context.Context, db interface {
	Begin(ctx context.Context) (Tx, error)
}, fn func(Tx) error) (err error) {
	return nil
}

func BeginTxFunc(ctx context.Context, db interface {
	BeginTx(ctx context.Context, txOptions TxOptions) (Tx, error)
}, txOptions TxOptions, fn func(Tx) error) (err error) {
	return nil
}

// real initializer: newProxyErr(sql.ErrNoRows, "no rows in result set")
var ErrNoRows error = errors.New("no rows in result set")

var ErrTxClosed = errors.New("tx is closed")

const ReadCommitted TxIsoLevel = "read committed"

const Serializable TxIsoLevel = "serializable"

const RepeatableRead TxIsoLevel = "repeatable read"

type Identifier []string

type CopyFromSource interface {
	Err() error
	Next() bool
	Values() ([]any, error)
}

type LargeObjects struct {
}
