package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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

var errNotFound = errors.New("not found")

type transfer struct{ RequestID string }

// Transfers is the transfers service's client (its implementation is not
// in this program).
type Transfers interface {
	ByHash(ctx context.Context, hash string) (*transfer, error)
}

// transferOf reads the transfer of a hash; errNotFound when there is none.
func transferOf(ctx context.Context, ts Transfers, hash string) (*transfer, error) {
	if hash == "" {
		return nil, errors.New("empty hash")
	}
	tr, err := ts.ByHash(ctx, hash)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errNotFound
		}
		return nil, err
	}
	return tr, nil
}

type owner struct{ ClientID string }

func ownerOf(ctx context.Context, db *sql.DB, id string) (owner, error) {
	var o owner
	err := db.QueryRowContext(ctx, `SELECT client_id FROM owners WHERE id = $1`, id).Scan(&o.ClientID)
	return o, err
}

// webhookParams builds a webhook's payload: a transfer that is not found
// leaves the request id out, on purpose (the test of the same error after
// its classification sees only nil or not-found); any other failure is
// returned.
func webhookParams(ctx context.Context, db *sql.DB, ts Transfers, hash, ownerID string) (string, error) {
	payload := hash
	if ownerID != "" {
		tr, err := transferOf(ctx, ts, hash)
		if err != nil && !errors.Is(err, errNotFound) {
			return "", err
		}
		if err == nil {
			payload += tr.RequestID
		}
	}
	o, err := ownerOf(ctx, db, ownerID)
	if err != nil {
		return "", err
	}
	return payload + o.ClientID, nil
}

// webhooks queues webhook rows.
type webhooks struct {
	db *sql.DB
	ts Transfers
}

// ProcessTask queues the webhook row, an upsert keyed by its payload.
func (w *webhooks) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := webhookParams(ctx, w.db, w.ts, string(t.Payload()), "o1")
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, `INSERT INTO webhooks (payload) VALUES ($1) ON CONFLICT (payload) DO UPDATE SET status = 'new'`, p)
	return err
}
