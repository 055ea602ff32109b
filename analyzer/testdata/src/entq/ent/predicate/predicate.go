// Package predicate has the shape of ent's generated predicate package.
package predicate

import "entgo.io/ent/dialect/sql"

// Signin is the predicate function for signin builders.
type Signin func(*sql.Selector)

// Points is the predicate function for points builders.
type Points func(*sql.Selector)
