// Package pg implements the repositories on PostgreSQL.
package pg

import (
	"context"
	"database/sql"

	"wholeprog/store"
)

// Store is the PostgreSQL store.
type Store struct{ db *sql.DB }

// New returns a store on db.
func New(db *sql.DB) *Store { return &Store{db: db} }

func (s *Store) Add(ctx context.Context, user string, n int) error {
	_, err := s.db.ExecContext(ctx, `UPDATE points SET n = n + $1 WHERE user_id = $2`, n, user)
	return err
}

func (s *Store) Set(ctx context.Context, user string, n int) error {
	_, err := s.db.ExecContext(ctx, `UPDATE points SET n = $1 WHERE user_id = $2`, n, user)
	return err
}

func (s *Store) MarkSeen(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO seen (id) VALUES ($1) ON CONFLICT DO NOTHING`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

func (s *Store) Append(ctx context.Context, user, entry string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO ledger (user_id, entry) VALUES ($1, $2)`, user, entry)
	return err
}

func (s *Store) Upload(ctx context.Context, user string, res *store.UploadResponse) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO keys (user_id) VALUES ($1) ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id`, user); err != nil {
		res.Error = &store.KeyError{Err: err.Error()}
	}
}

func (s *Store) Enqueue(ctx context.Context, payload []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO federation_queue (payload) VALUES ($1)`, payload)
	return err
}
