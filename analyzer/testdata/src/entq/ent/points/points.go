// Package points has the shape of an ent entity package (ent before
// v0.12, whose create spec is a literal).
package points

import (
	"entgo.io/ent/dialect/sql"

	"entq/ent/predicate"
)

const (
	// Table holds the table name of the points in the database.
	Table = "points_ledger"
	// FieldID holds the string denoting the id field in the database.
	FieldID = "id"
)

// UserID applies equality check predicate on the "user_id" field.
func UserID(v int64) predicate.Points { return func(s *sql.Selector) {} }
