// Package positions recomputes a user's rank: an overwrite, the same on
// every delivery.
package positions

import (
	"context"
	"database/sql"

	"procx/worker"
)

// Processor recomputes ranks.
type Processor struct{ db *sql.DB }

// New returns the processor.
func New(db *sql.DB) *Processor { return &Processor{db: db} }

// Name names the consumer.
func (p *Processor) Name() string { return "positions" }

// Process sets the user's rank from its points.
func (p *Processor) Process(ctx context.Context, e worker.Event) error {
	_, err := p.db.ExecContext(ctx, "UPDATE users SET rank = (SELECT count(*) FROM users u WHERE u.points > users.points) WHERE id = $1", e.UserID)
	return err
}
