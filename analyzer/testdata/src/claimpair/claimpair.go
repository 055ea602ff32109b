// Package claimpair (whole-program mode): a service's own job table in
// SQLite, claimed in two statements in one transaction (a pick of the
// oldest pending row, then an update that moves it on only if it is still
// pending) and read back by its id. The processor runs the handler
// registered for the job's type and marks the job completed when it
// returns nil: the handlers are acked by a nil error.
package claimpair

import (
	"context"
	"database/sql"
	"errors"
	"log"
)

// Job is a claimed row.
type Job struct {
	ID, Type, Payload string
}

// Handler runs one type of job.
type Handler interface {
	Handle(ctx context.Context, job *Job) error
}

// Store is the job table.
type Store struct{ db *sql.DB }

// ClaimPending claims the oldest pending job; nil when there is none or
// another worker won it.
func (s *Store) ClaimPending(ctx context.Context, worker string) (*Job, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var id string
	err = tx.QueryRowContext(ctx, `SELECT id FROM jobs WHERE status = ? AND claimed_by IS NULL ORDER BY created_at LIMIT 1`, "pending").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE jobs SET status = ?, claimed_by = ? WHERE id = ? AND status = ? AND claimed_by IS NULL`, "running", worker, id, "pending")
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return nil, err
	}
	job := &Job{}
	if err := tx.QueryRowContext(ctx, `SELECT id, type, payload FROM jobs WHERE id = ?`, id).Scan(&job.ID, &job.Type, &job.Payload); err != nil {
		return nil, err
	}
	return job, tx.Commit()
}

// Complete marks a job done or failed.
func (s *Store) Complete(ctx context.Context, id, status string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, claimed_by = NULL WHERE id = ?`, status, id)
	return err
}

// Worker claims and processes jobs.
type Worker struct {
	store    *Store
	handlers map[string]Handler
}

// Poll processes one pending job, if any.
func (w *Worker) Poll(ctx context.Context) {
	job, err := w.store.ClaimPending(ctx, "w1")
	if err != nil || job == nil {
		return
	}
	if err := w.process(ctx, job); err != nil {
		log.Print(err)
	}
}

func (w *Worker) process(ctx context.Context, job *Job) error {
	h, ok := w.handlers[job.Type]
	if !ok {
		return w.store.Complete(ctx, job.ID, "failed")
	}
	if err := h.Handle(ctx, job); err != nil {
		return w.store.Complete(ctx, job.ID, "failed")
	}
	return w.store.Complete(ctx, job.ID, "completed")
}

// Credit credits a user's balance: a job run twice credits twice.
type Credit struct{ db *sql.DB }

// Handle credits the balance.
func (c *Credit) Handle(ctx context.Context, job *Job) error {
	_, err := c.db.ExecContext(ctx, `UPDATE balances SET amount = amount + 10 WHERE user_id = ?`, job.Payload) // want `effect sql.DB.ExecContext "UPDATE balances SET amount = amount \+ 10 WHERE user_id = \?" in handler Credit.Handle is not guarded by a dedup check \(IDEM001\)`
	return err
}

// Provision records the app, then logs a failed DNS record and returns
// nil: the job is marked completed without its record.
type Provision struct {
	db  *sql.DB
	dns DNS
}

// DNS creates records.
type DNS interface {
	CreateRecord(ctx context.Context, name string) error
}

// Handle provisions the app.
func (p *Provision) Handle(ctx context.Context, job *Job) error {
	if _, err := p.db.ExecContext(ctx, `UPDATE apps SET state = 'provisioned' WHERE id = ?`, job.Payload); err != nil {
		return err
	}
	if err := p.dns.CreateRecord(ctx, job.Payload); err != nil {
		log.Printf("dns record: %v", err)
	}
	return nil // want `handler Provision.Handle returns nil when claimpair.DNS.CreateRecord fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
}

type cloudDNS struct{ db *sql.DB }

func (d *cloudDNS) CreateRecord(ctx context.Context, name string) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO dns_records (name) VALUES (?) ON CONFLICT (name) DO NOTHING`, name)
	return err
}

// Start wires the worker.
func Start(db *sql.DB) *Worker {
	return &Worker{store: &Store{db: db}, handlers: map[string]Handler{
		"credit":    &Credit{db: db},
		"provision": &Provision{db: db, dns: &cloudDNS{db: db}},
	}}
}
