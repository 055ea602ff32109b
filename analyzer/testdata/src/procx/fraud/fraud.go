// Package fraud runs checks on a new user and records what they find. A
// check that cannot read degrades on purpose; a detection that cannot be
// recorded is logged and dropped, and the event committed: lost.
package fraud

import (
	"context"
	"database/sql"
	"log"

	"procx/worker"
)

// Processor records fraud detections.
type Processor struct{ db *sql.DB }

// New returns the processor.
func New(db *sql.DB) *Processor { return &Processor{db: db} }

// Name names the consumer.
func (p *Processor) Name() string { return "fraud" }

// Process analyses the event's user.
func (p *Processor) Process(ctx context.Context, e worker.Event) error {
	if e.Type != "user.created" {
		return nil
	}
	if err := p.analyze(ctx, e.UserID); err != nil { // want `IDEM001`
		return err
	}
	return nil // want `IDEM003`
}

// Rechecker runs the analysis again for users the support team flags.
type Rechecker struct{ p *Processor }

// NewRechecker returns the processor.
func NewRechecker(db *sql.DB) *Rechecker { return &Rechecker{p: New(db)} }

// Name names the consumer.
func (r *Rechecker) Name() string { return "recheck" }

// Process returns the analysis's result: nil whatever a detection's record
// did.
func (r *Rechecker) Process(ctx context.Context, e worker.Event) error {
	return r.p.analyze(ctx, e.UserID) // want `IDEM001` `handler Rechecker.Process returns the result of fraud.Processor.analyze, which is nil when`
}

func (p *Processor) analyze(ctx context.Context, user string) error {
	var hits []string
	if n, err := p.signups(ctx, user); err != nil {
		log.Printf("velocity check: %v", err) // degrades: the check is skipped
	} else if n > 10 {
		hits = append(hits, "velocity")
	}
	for _, h := range hits {
		if err := p.record(ctx, user, h); err != nil {
			log.Printf("record %s: %v", h, err)
		}
	}
	return nil
}

func (p *Processor) signups(ctx context.Context, user string) (int, error) {
	var n int
	err := p.db.QueryRowContext(ctx, "SELECT count(*) FROM signups WHERE ip = (SELECT ip FROM users WHERE id = $1)", user).Scan(&n)
	return n, err
}

func (p *Processor) record(ctx context.Context, user, kind string) error {
	_, err := p.db.ExecContext(ctx, "INSERT INTO fraud_detections (user_id, kind) VALUES ($1, $2)", user, kind)
	return err
}
