// Package sqlcread (whole-program mode): sqlc's pgx interface DBTX, which
// no type of the program implements and main fills with a *pgxpool.Pool.
// Its methods run statements: a SELECT whose error the handler discards
// degrades (the embedding is made from fewer words), it loses no work; an
// UPDATE whose error it discards does.
package sqlcread

import (
	"context"
	"encoding/json"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is sqlc's interface over pgx.
type DBTX interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
	Query(context.Context, string, ...interface{}) (pgx.Rows, error)
	QueryRow(context.Context, string, ...interface{}) pgx.Row
}

// Queries runs the service's statements.
type Queries struct{ db DBTX }

// New returns the queries over db.
func New(db DBTX) *Queries { return &Queries{db: db} }

const listTags = `-- name: ListTags :many
SELECT name FROM recipe_tags WHERE recipe_id = $1
`

// ListTags lists a recipe's tags.
func (q *Queries) ListTags(ctx context.Context, recipeID string) ([]string, error) {
	rows, err := q.db.Query(ctx, listTags, recipeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

const setSummary = `-- name: SetSummary :exec
UPDATE recipes SET summary = $2 WHERE id = $1
`

// SetSummary sets a recipe's summary.
func (q *Queries) SetSummary(ctx context.Context, id, summary string) error {
	_, err := q.db.Exec(ctx, setSummary, id, summary)
	return err
}

// Store is what the handlers need of the queries (for mocks).
type Store interface {
	ListTags(ctx context.Context, recipeID string) ([]string, error)
	SetSummary(ctx context.Context, id, summary string) error
}

// Handler summarises recipes.
type Handler struct{ q Store }

// Payload names the recipe.
type Payload struct{ RecipeID, Title string }

// Summarise writes the recipe's summary from its title and tags; the tags
// are only read, and a failed read leaves them out.
func (h *Handler) Summarise(ctx context.Context, t *asynq.Task) error {
	var p Payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return err
	}
	tags, _ := h.q.ListTags(ctx, p.RecipeID)
	summary := p.Title
	for _, tag := range tags {
		summary += " #" + tag
	}
	if err := h.q.SetSummary(ctx, p.RecipeID, summary); err != nil {
		return err
	}
	return nil
}

// SummariseLossy drops the update's failure: the message is acked and the
// summary never written.
func (h *Handler) SummariseLossy(ctx context.Context, t *asynq.Task) error {
	var p Payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return err
	}
	_ = h.q.SetSummary(ctx, p.RecipeID, p.Title)
	return nil // want `handler Handler.SummariseLossy returns nil when sqlcread.Store.SetSummary fails`
}

// Register wires the queries to the pool and the handlers to the mux.
func Register(pool *pgxpool.Pool, mux *asynq.ServeMux) {
	h := &Handler{q: New(pool)}
	mux.HandleFunc("recipe:summarise", h.Summarise)
	mux.HandleFunc("recipe:summarise-lossy", h.SummariseLossy)
}
