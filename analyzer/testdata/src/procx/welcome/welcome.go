// Package welcome sends a welcome SMS once per event: the event's id is
// claimed in the same transaction as the outbox row.
package welcome

import (
	"context"
	"database/sql"

	"procx/worker"
)

// Processor records welcome messages.
type Processor struct{ db *sql.DB }

// New returns the processor.
func New(db *sql.DB) *Processor { return &Processor{db: db} }

// Name names the consumer.
func (p *Processor) Name() string { return "welcome" }

// Process queues the welcome message once.
func (p *Processor) Process(ctx context.Context, e worker.Event) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING", e.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO welcome_log (user_id) VALUES ($1)", e.UserID); err != nil {
		return err
	}
	return tx.Commit()
}
