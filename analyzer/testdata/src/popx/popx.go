// Package popx: an asynq task whose effect is a gobuffalo/pop insert.
package popx

import (
	"context"

	"github.com/gobuffalo/pop/v6"
	"github.com/hibiken/asynq"
)

type Mail struct {
	ID     string
	Status string
}

type Queue struct{ Conn *pop.Connection }

// ProcessTask inserts a mail row per delivery.
func (q *Queue) ProcessTask(ctx context.Context, t *asynq.Task) error {
	return q.Conn.Create(&Mail{ID: string(t.Payload()), Status: "queued"}) // want `IDEM001`
}

// update sets the status: a repeat changes nothing.
func (q *Queue) update(ctx context.Context, t *asynq.Task) error {
	return q.Conn.Update(&Mail{ID: string(t.Payload()), Status: "sent"})
}
