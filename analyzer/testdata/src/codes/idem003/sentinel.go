package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"github.com/hibiken/asynq"
)

// fanOut enqueues a follow-up task per id under the id as its task id and
// marks the row enqueued. A task id that is already taken is a duplicate the
// handler goes on from on purpose; any other failure is returned.
func fanOut(ctx context.Context, db *sql.DB, c *asynq.Client, t *asynq.Task) error {
	var ids []string
	if err := json.Unmarshal(t.Payload(), &ids); err != nil {
		return err
	}
	for _, id := range ids {
		_, err := c.EnqueueContext(ctx, asynq.NewTask("publish", []byte(id)), asynq.TaskID(id))
		if err != nil && err != asynq.ErrTaskIDConflict {
			return err
		}
		if _, err := db.ExecContext(ctx, `UPDATE posts SET status = 'enqueued' WHERE id = $1`, id); err != nil {
			return err
		}
	}
	return nil
}

// fanOutLossy logs every failed enqueue and goes on: the task that failed
// is never enqueued.
func fanOutLossy(ctx context.Context, db *sql.DB, c *asynq.Client, t *asynq.Task) error {
	var ids []string
	if err := json.Unmarshal(t.Payload(), &ids); err != nil {
		return err
	}
	for _, id := range ids {
		_, err := c.EnqueueContext(ctx, asynq.NewTask("publish", []byte(id)), asynq.TaskID(id))
		if err != nil {
			log.Print(err)
			continue
		}
		if _, err := db.ExecContext(ctx, `UPDATE posts SET status = 'enqueued' WHERE id = $1`, id); err != nil {
			return err
		}
	}
	return nil // want `handler fanOutLossy returns success when asynq.Client.EnqueueContext fails: the message is acked and lost \(IDEM003\)`
}
