// Package gomqx: cheshir/go-mq handlers registered with SetConsumerHandler
// and acked by hand.
package gomqx

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	mq "github.com/cheshir/go-mq/v2"
)

type task struct {
	ID      string `json:"id"`
	Project string `json:"project"`
}

// Listen registers the task handlers.
func Listen(ctx context.Context, q *mq.MessageQueue, db *sql.DB) error {
	// A failed insert is logged and the task acked: it is never run.
	if err := q.SetConsumerHandler("jobs-queue", func(message mq.Message) {
		var t task
		_ = json.Unmarshal(message.Body(), &t)
		if _, err := db.ExecContext(ctx, `INSERT INTO tasks (id, project) VALUES ($1, $2)`, t.ID, t.Project); err != nil { // want `IDEM001`
			log.Print(err)
			_ = message.Ack(false) // want `IDEM003`
			return
		}
		_ = message.Ack(false)
	}); err != nil {
		return err
	}
	// Naks a failed upsert for another try: nothing lost, nothing doubled.
	return q.SetConsumerHandler("projects-queue", func(message mq.Message) {
		var t task
		if err := json.Unmarshal(message.Body(), &t); err != nil {
			_ = message.Reject(false)
			return
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO projects (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, t.Project); err != nil {
			_ = message.Nack(false, true)
			return
		}
		_ = message.Ack(false)
	})
}
