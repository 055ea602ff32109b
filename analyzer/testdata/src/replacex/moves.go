package replacex

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// Moves: rows copied to an archive, then deleted from their table in the
// same function; a partition's rows moved by one statement. A repeat finds
// nothing left to copy. A copy whose source stays is an effect.

// RegisterMoves registers the tasks of moves.
func RegisterMoves(mux *asynq.ServeMux, s *store) {
	mux.HandleFunc("archive", s.handleArchive)
	mux.HandleFunc("copy", s.handleCopy)
	mux.HandleFunc("partition", s.handlePartition)
	mux.HandleFunc("bump", s.handleBump)
}

// archiveMails copies the finished mails to the archive and deletes them.
func (s *store) archiveMails(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `WITH done AS (SELECT id FROM mails WHERE status = 'sent' LIMIT $1 FOR UPDATE SKIP LOCKED)
		INSERT INTO mails_archive SELECT * FROM mails m WHERE m.id IN (SELECT id FROM done) RETURNING id`, 500)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM mails WHERE id = ANY($1::uuid[])`, ids); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (s *store) handleArchive(ctx context.Context, t *asynq.Task) error {
	return s.archiveMails(ctx)
}

// handleCopy copies and keeps the source: a repeat copies them again.
func (s *store) handleCopy(ctx context.Context, t *asynq.Task) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO mails_report SELECT * FROM mails WHERE day = $1`, string(t.Payload())) // want `IDEM001`
	return err
}

// migratePartition runs its steps from a slice literal: DDL, and a move
// in one statement.
func (s *store) migratePartition(ctx context.Context, name, from string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	steps := []string{
		`ALTER TABLE audit_logs DETACH PARTITION audit_logs_default`,
		fmt.Sprintf(`CREATE TABLE %s PARTITION OF audit_logs FOR VALUES FROM ('%s')`, name, from),
		fmt.Sprintf(`WITH moved AS (DELETE FROM audit_logs_default WHERE created_at >= '%s' RETURNING *) INSERT INTO %s SELECT * FROM moved`, from, name),
	}
	for _, q := range steps {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

func (s *store) handlePartition(ctx context.Context, t *asynq.Task) error {
	return s.migratePartition(ctx, "audit_logs_2026_01", "2026-01-01")
}

// handleBump runs its steps from a slice literal, one of them an
// increment.
func (s *store) handleBump(ctx context.Context, t *asynq.Task) error {
	for _, q := range []string{`UPDATE totals SET n = n + 1`, `ANALYZE totals`} {
		if _, err := s.pool.Exec(ctx, q); err != nil { // want `IDEM001`
			return err
		}
	}
	return nil
}
