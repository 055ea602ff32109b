// Package clickhouse is a stub of github.com/ClickHouse/clickhouse-go/v2@v2.48.0 for analyzer tests: signatures mirror the real API.
package clickhouse

import "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

// Options are the connection's options (a subset).
type Options struct {
	Addr []string
}

// Open opens a native connection.
func Open(opt *Options) (driver.Conn, error) { return nil, nil }
