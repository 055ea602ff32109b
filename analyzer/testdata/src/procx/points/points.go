// Package points awards points for events: every delivery adds them again.
package points

import (
	"context"
	"database/sql"

	"procx/worker"
)

// Processor awards points.
type Processor struct{ db *sql.DB }

// New returns the processor.
func New(db *sql.DB) *Processor { return &Processor{db: db} }

// Name names the consumer.
func (p *Processor) Name() string { return "points" }

// Process adds the points of an event.
func (p *Processor) Process(ctx context.Context, e worker.Event) error {
	if e.Type != "order.paid" {
		return nil
	}
	_, err := p.db.ExecContext(ctx, "UPDATE users SET points = points + 10 WHERE id = $1", e.UserID) // want `IDEM001`
	return err
}
