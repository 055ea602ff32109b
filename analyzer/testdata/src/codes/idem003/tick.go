package idem003

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"github.com/hibiken/asynq"
)

// Ticks: a periodic task that reads nothing of its message takes its work
// from the store; a failure it logs is taken up by the next tick. One that
// reads its payload loses what the payload carried.

type syncPayload struct {
	User string `json:"user"`
}

type counters struct{ db *sql.DB }

// SyncDirty recounts the rows marked dirty and clears their marks.
func (c *counters) SyncDirty(ctx context.Context) error {
	_, err := c.db.ExecContext(ctx, `UPDATE post_stats SET dirty = false WHERE dirty`)
	return err
}

// SyncUser recounts one user's rows.
func (c *counters) SyncUser(ctx context.Context, user string) error {
	_, err := c.db.ExecContext(ctx, `UPDATE user_stats SET dirty = false WHERE user_id = $1`, user)
	return err
}

// syncTick decodes its payload and reads none of it.
func syncTick(ctx context.Context, t *asynq.Task) error {
	var p syncPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return err
	}
	c := &counters{}
	if err := c.SyncDirty(ctx); err != nil {
		log.Print(err)
	}
	return nil
}

// syncUserTask reads the user from its payload: that user's sync is lost.
func syncUserTask(ctx context.Context, t *asynq.Task) error {
	var p syncPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return err
	}
	c := &counters{}
	if err := c.SyncUser(ctx, p.User); err != nil {
		log.Print(err)
	}
	return nil // want `handler syncUserTask returns success when .*SyncUser fails`
}

// syncQuietly calls a sync that logs its own failure and reports success.
func (c *counters) syncQuietly(ctx context.Context) {
	if err := c.SyncDirty(ctx); err != nil {
		log.Print(err)
	}
}

// syncTickQuiet is a tick whose step swallows its failure: the next tick
// takes it up.
func syncTickQuiet(ctx context.Context, t *asynq.Task) error {
	c := &counters{}
	c.syncQuietly(ctx)
	return nil
}

// syncUserQuiet reads its payload: the swallowed failure loses that
// user's sync.
func syncUserQuiet(ctx context.Context, t *asynq.Task) error {
	c := &counters{}
	if err := c.SyncUser(ctx, string(t.Payload())); err != nil {
		log.Print(err)
	}
	c.syncQuietly(ctx)
	return nil // want `handler syncUserQuiet returns success when .*SyncUser fails`
}

// syncCounters returns nil when the sync fails.
func (c *counters) syncCounters(ctx context.Context) error {
	if err := c.SyncDirty(ctx); err != nil {
		log.Print(err)
	}
	return nil
}

// syncTickReturned is a tick returning its step's untested result.
func syncTickReturned(ctx context.Context, t *asynq.Task) error {
	c := &counters{}
	return c.syncCounters(ctx)
}

// syncUserReturned reads its payload and returns a step's untested result.
func syncUserReturned(ctx context.Context, t *asynq.Task) error {
	c := &counters{}
	if string(t.Payload()) == "" {
		return nil
	}
	return c.syncCounters(ctx) // want `handler syncUserReturned returns the result of idem003.counters.syncCounters, which is nil when`
}
