// Package driver is a stub of github.com/ClickHouse/clickhouse-go/v2@v2.48.0 for analyzer tests: signatures mirror the real API.
package driver

import "context"

type (
	// Conn is the native API's connection (a subset of its methods).
	Conn interface {
		Query(ctx context.Context, query string, args ...any) (Rows, error)
		QueryRow(ctx context.Context, query string, args ...any) Row
		PrepareBatch(ctx context.Context, query string, opts ...PrepareBatchOption) (Batch, error)
		Exec(ctx context.Context, query string, args ...any) error
		AsyncInsert(ctx context.Context, query string, wait bool, args ...any) error
		Close() error
	}
	// Row is one row of a query.
	Row interface {
		Err() error
		Scan(dest ...any) error
	}
	// Rows are the rows of a query.
	Rows interface {
		Next() bool
		Scan(dest ...any) error
		Close() error
		Err() error
	}
	// Batch is a prepared INSERT's rows, sent at once.
	Batch interface {
		Abort() error
		Append(v ...any) error
		AppendStruct(v any) error
		Flush() error
		Send() error
		Close() error
	}
)

// PrepareBatchOptions are PrepareBatch's options.
type PrepareBatchOptions struct {
	ReleaseConnection bool
	CloseOnFlush      bool
}

// PrepareBatchOption sets a PrepareBatch option.
type PrepareBatchOption func(options *PrepareBatchOptions)
