// Package ent has the shape of the code ent generates: per entity a
// client, a query builder whose terminal methods (Only, Exist, Count) run
// through interceptors, and a create builder that writes through
// sqlgraph.CreateNode.
package ent

import (
	"context"
	"errors"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/sqlgraph"

	"entq/ent/points"
	"entq/ent/predicate"
	"entq/ent/signin"
)

type config struct{ driver dialect.Driver }

// NotFoundError returns when trying to fetch a specific entity and it was
// not found in the database.
type NotFoundError struct{ label string }

func (e *NotFoundError) Error() string { return "ent: " + e.label + " not found" }

// IsNotFound returns a boolean indicating whether the error is a not found error.
func IsNotFound(err error) bool {
	if err == nil {
		return false
	}
	var e *NotFoundError
	return errors.As(err, &e)
}

// Client holds the entity clients.
type Client struct {
	Signin *SigninClient
	Points *PointsClient
}

// Signin is one user's sign-in of a day.
type Signin struct {
	ID     int
	UserID int64
	Day    string
	Streak int
}

// SigninClient is a client for the Signin schema.
type SigninClient struct{ config }

// Query returns a query builder for Signin.
func (c *SigninClient) Query() *SigninQuery { return &SigninQuery{config: c.config} }

// Create returns a builder for creating a Signin entity.
func (c *SigninClient) Create() *SigninCreate { return &SigninCreate{config: c.config} }

// SigninQuery is the builder for querying Signin entities.
type SigninQuery struct {
	config
	inters     []any
	predicates []predicate.Signin
}

// Where adds a new predicate for the SigninQuery builder.
func (q *SigninQuery) Where(ps ...predicate.Signin) *SigninQuery {
	q.predicates = append(q.predicates, ps...)
	return q
}

func (q *SigninQuery) all(ctx context.Context) ([]*Signin, error) {
	var rows []*Signin
	return rows, q.driver.Query(ctx, "SELECT", nil, &rows)
}

// Only returns a single Signin entity found by the query.
func (q *SigninQuery) Only(ctx context.Context) (*Signin, error) {
	nodes, err := q.all(ctx)
	if err != nil {
		return nil, err
	}
	if len(nodes) != 1 {
		return nil, &NotFoundError{"signin"}
	}
	return nodes[0], nil
}

// Exist returns true if the query has elements in the graph.
func (q *SigninQuery) Exist(ctx context.Context) (bool, error) {
	switch _, err := q.Only(ctx); {
	case IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	default:
		return true, nil
	}
}

// Count returns the count of the given query.
func (q *SigninQuery) Count(ctx context.Context) (int, error) {
	nodes, err := q.all(ctx)
	return len(nodes), err
}

// SigninCreate is the builder for creating a Signin entity.
type SigninCreate struct {
	config
	user int64
	day  string
}

// SetUserID sets the "user_id" field.
func (c *SigninCreate) SetUserID(v int64) *SigninCreate { c.user = v; return c }

// SetDay sets the "day" field.
func (c *SigninCreate) SetDay(v string) *SigninCreate { c.day = v; return c }

func (c *SigninCreate) createSpec() (*Signin, *sqlgraph.CreateSpec) {
	node := &Signin{UserID: c.user, Day: c.day}
	spec := sqlgraph.NewCreateSpec(signin.Table, &sqlgraph.FieldSpec{Column: signin.FieldID})
	spec.Fields = append(spec.Fields, &sqlgraph.FieldSpec{Column: "user_id", Value: c.user})
	return node, spec
}

func (c *SigninCreate) sqlSave(ctx context.Context) (*Signin, error) {
	node, spec := c.createSpec()
	if err := sqlgraph.CreateNode(ctx, c.driver, spec); err != nil {
		return nil, err
	}
	return node, nil
}

// Exec executes the query.
func (c *SigninCreate) Exec(ctx context.Context) error {
	_, err := c.sqlSave(ctx)
	return err
}

// PointsClient is a client for the Points schema.
type PointsClient struct{ config }

// Query returns a query builder for Points.
func (c *PointsClient) Query() *PointsQuery { return &PointsQuery{config: c.config} }

// Create returns a builder for creating a Points entity.
func (c *PointsClient) Create() *PointsCreate { return &PointsCreate{config: c.config} }

// PointsQuery is the builder for querying Points entities.
type PointsQuery struct {
	config
	predicates []predicate.Points
}

// Where adds a new predicate for the PointsQuery builder.
func (q *PointsQuery) Where(ps ...predicate.Points) *PointsQuery {
	q.predicates = append(q.predicates, ps...)
	return q
}

// Exist returns true if the query has elements in the graph.
func (q *PointsQuery) Exist(ctx context.Context) (bool, error) {
	var n int
	err := q.driver.Query(ctx, "SELECT", nil, &n)
	return n > 0, err
}

// PointsCreate is the builder for creating a Points entity.
type PointsCreate struct {
	config
	user int64
	qty  int
}

// SetUserID sets the "user_id" field.
func (c *PointsCreate) SetUserID(v int64) *PointsCreate { c.user = v; return c }

// SetQty sets the "qty" field.
func (c *PointsCreate) SetQty(v int) *PointsCreate { c.qty = v; return c }

// Exec executes the query.
func (c *PointsCreate) Exec(ctx context.Context) error {
	spec := &sqlgraph.CreateSpec{Table: points.Table, ID: &sqlgraph.FieldSpec{Column: points.FieldID}}
	return sqlgraph.CreateNode(ctx, c.driver, spec)
}
