// Package pgtype is a stub of github.com/jackc/pgx/v5@v5.12.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pgtype

type Map struct {
}

func NewMap() *Map { return nil }
