// Package pop is a stub of github.com/gobuffalo/pop/v6@v6.4.1 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package pop

import "github.com/gobuffalo/validate/v3"

// Connection is a database connection (or a transaction, inside
// Transaction's callback).
type Connection struct{}

// Query is a query being built.
type Query struct{}

func Connect(env string) (*Connection, error) { return nil, nil }

func (c *Connection) Create(model any, excludeColumns ...string) error { return nil }

func (c *Connection) ValidateAndCreate(model any, excludeColumns ...string) (*validate.Errors, error) {
	return nil, nil
}

func (c *Connection) Update(model any, excludeColumns ...string) error { return nil }

func (c *Connection) Destroy(model any) error { return nil }

func (c *Connection) Find(model any, id any) error { return nil }

func (c *Connection) Transaction(fn func(tx *Connection) error) error { return nil }

func (c *Connection) RawQuery(stmt string, args ...any) *Query { return nil }

func (c *Connection) Where(stmt string, args ...any) *Query { return nil }

func (q *Query) Exec() error { return nil }

func (q *Query) First(model any) error { return nil }
