// Package schemax: asynq tasks inserting rows into tables whose unique
// keys the module's migrations declare. An insert that sets every column
// of a natural key cannot add a second row on a redelivery; one keyed only
// by a fresh id can.
package schemax

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hibiken/asynq"
)

type store struct{ db *sql.DB }

// storeChunk inserts a chunk keyed by (document_id, sequence_number): a
// repeat violates the key.
func (s *store) storeChunk(ctx context.Context, t *asynq.Task) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO document_chunks (id, document_id, sequence_number, text) VALUES (gen_random_uuid(), $1, 0, $2)`, "doc", string(t.Payload()))
	return err
}

// grant inserts a role keyed by (user_id, role), declared in a goose
// migration whose down section drops the table.
func (s *store) grant(ctx context.Context, t *asynq.Task) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO grants (user_id, role) VALUES ($1, 'admin')`, string(t.Payload()))
	return err
}

// pay inserts a payment under a fresh id: a repeat adds a second payment.
func (s *store) pay(ctx context.Context, t *asynq.Task) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO payments (id, order_id, amount) VALUES (gen_random_uuid(), $1, 100)`, string(t.Payload())) // want `IDEM001`
	return err
}

// storeChunkText inserts without the sequence number: the key is not set.
func (s *store) storeChunkText(ctx context.Context, t *asynq.Task) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO document_chunks (document_id, text) VALUES ($1, $2)`, "doc", string(t.Payload())) // want `IDEM001`
	return err
}

// Table names, as a service keeps them.
const (
	tableJobLogs = "job_logs"
	tableRawLogs = "raw_logs"
)

// exec runs a statement its caller builds.
func (s *store) exec(ctx context.Context, query string, args ...any) error {
	_, err := s.db.ExecContext(ctx, query, args...)
	return err
}

// storeLog inserts a log line keyed by its event id into a
// ReplacingMergeTree, through a helper and a formatted table name.
func (s *store) storeLog(ctx context.Context, t *asynq.Task) error {
	stmt := fmt.Sprintf(`INSERT INTO %s (event_id, job_id, message) VALUES (?, ?, ?)`, tableJobLogs)
	return s.exec(ctx, stmt, "ev", "job", string(t.Payload()))
}

// storeRawLog inserts into a MergeTree, which keeps every row.
func (s *store) storeRawLog(ctx context.Context, t *asynq.Task) error {
	stmt := fmt.Sprintf(`INSERT INTO %s (event_id, message) VALUES (?, ?)`, tableRawLogs)
	return s.exec(ctx, stmt, "ev", string(t.Payload())) // want `IDEM001`
}
