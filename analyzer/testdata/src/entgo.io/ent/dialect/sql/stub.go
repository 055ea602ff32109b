// Package sql is a stub of entgo.io/ent@v0.14.5 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sql

// Selector is a builder for the SELECT statement; ent's predicates are
// functions of one.
type Selector struct {
	table string
}
