// Package signin has the shape of an ent entity package.
package signin

import (
	"entgo.io/ent/dialect/sql"

	"entq/ent/predicate"
)

const (
	// Table holds the table name of the signin in the database.
	Table = "user_signins"
	// FieldID holds the string denoting the id field in the database.
	FieldID = "id"
)

// UserID applies equality check predicate on the "user_id" field.
func UserID(v int64) predicate.Signin { return func(s *sql.Selector) {} }

// Day applies equality check predicate on the "day" field.
func Day(v string) predicate.Signin { return func(s *sql.Selector) {} }
