package gizmox

// Package gizmox: a gizmo subscriber's messages, marked done through the
// program's own helper.

import (
	"context"
	"database/sql"
	"log"

	"github.com/NYTimes/gizmo/pubsub"
)

type Processor struct {
	sub pubsub.Subscriber
	db  *sql.DB
}

func (p *Processor) markDone(m pubsub.SubscriberMessage) {
	if err := m.Done(); err != nil {
		log.Print(err)
	}
}

// run adds points for every message, a repeat too, and marks it done even
// when the update failed.
func (p *Processor) run(ctx context.Context) {
	for m := range p.sub.Start() {
		if _, err := p.db.ExecContext(ctx, "UPDATE users SET points = points + 1 WHERE id = $1", string(m.Message())); err != nil { // want `IDEM001`
			log.Print(err)
		}
		p.markDone(m) // want `IDEM003`
	}
}

// runSet sets a column: a repeat leaves the same row.
func (p *Processor) runSet(ctx context.Context) {
	for m := range p.sub.Start() {
		if _, err := p.db.ExecContext(ctx, "UPDATE users SET seen = true WHERE id = $1", string(m.Message())); err != nil {
			continue
		}
		p.markDone(m)
	}
}
