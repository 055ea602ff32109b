// Package replacex: asynq tasks that replace rows rather than add them —
// a snapshot truncated and copied in again, the rows of a key deleted and
// inserted again — and ones that only look like it.
package replacex

import (
	"context"

	"github.com/hibiken/asynq"
	pgx "github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type store struct{ pool *pgxpool.Pool }

// reloadBids truncates the snapshot tables and copies the current state
// in: a repeat leaves the same rows.
func (s *store) reloadBids(ctx context.Context, bids, delegators [][]any) error {
	if _, err := s.pool.Exec(ctx, `TRUNCATE bids; TRUNCATE delegators;`); err != nil {
		return err
	}
	if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"bids"}, []string{"public_key", "stake"}, pgx.CopyFromRows(bids)); err != nil {
		return err
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"public", "delegators"}, []string{"public_key", "delegatee"}, pgx.CopyFromRows(delegators))
	return err
}

func (s *store) handleAuction(ctx context.Context, t *asynq.Task) error {
	return s.reloadBids(ctx, nil, nil)
}

// handleOrderItems rewrites the items of one order: deleted by order id,
// inserted with it.
func (s *store) handleOrderItems(ctx context.Context, t *asynq.Task) error {
	order := string(t.Payload())
	if _, err := s.pool.Exec(ctx, `DELETE FROM order_items WHERE order_id = $1`, order); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO order_items (order_id, sku, qty) VALUES ($1, $2, $3)`, order, "sku", 1)
	return err
}

// handleOneText: the delete and the insert in one statement text.
func (s *store) handleOneText(ctx context.Context, t *asynq.Task) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM tags WHERE post_id = $1; INSERT INTO tags (post_id, tag) VALUES ($1, $2)`, string(t.Payload()), "x")
	return err
}

// handleSometimes truncates only on a full reload: the copy after a
// partial one adds rows again.
func (s *store) handleSometimes(ctx context.Context, t *asynq.Task) error {
	if len(t.Payload()) > 0 {
		if _, err := s.pool.Exec(ctx, `TRUNCATE bids`); err != nil {
			return err
		}
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"bids"}, []string{"public_key", "stake"}, pgx.CopyFromRows(nil)) // want `IDEM001`
	return err
}

// handleOtherTable deletes the order's items and inserts a note
// about it: the note is added on every delivery.
func (s *store) handleOtherTable(ctx context.Context, t *asynq.Task) error {
	order := string(t.Payload())
	if _, err := s.pool.Exec(ctx, `DELETE FROM order_items WHERE order_id = $1`, order); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO order_notes (order_id, what) VALUES ($1, 'cleared')`, order) // want `IDEM001`
	return err
}

// handleCleanup deletes expired rows, then inserts: not the rows it
// deleted.
func (s *store) handleCleanup(ctx context.Context, t *asynq.Task) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at < now()`); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (user_id, token) VALUES ($1, $2)`, string(t.Payload()), "tok") // want `IDEM001`
	return err
}

// handleCopyThenTruncate copies before it truncates: the truncate runs
// after the rows are in.
func (s *store) handleCopyThenTruncate(ctx context.Context, t *asynq.Task) error {
	if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"bids"}, []string{"public_key"}, pgx.CopyFromRows(nil)); err != nil { // want `IDEM001`
		return err
	}
	_, err := s.pool.Exec(ctx, `TRUNCATE staging`)
	return err
}

// Register registers the handlers.
func Register(mux *asynq.ServeMux, s *store) {
	mux.HandleFunc("auction", s.handleAuction)
	mux.HandleFunc("items", s.handleOrderItems)
	mux.HandleFunc("tags", s.handleOneText)
	mux.HandleFunc("sometimes", s.handleSometimes)
	mux.HandleFunc("other", s.handleOtherTable)
	mux.HandleFunc("cleanup", s.handleCleanup)
	mux.HandleFunc("copyfirst", s.handleCopyThenTruncate)
}
