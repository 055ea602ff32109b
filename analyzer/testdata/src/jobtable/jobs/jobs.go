// Package jobs is a service's own job table in PostgreSQL: a worker claims
// the next due job with one UPDATE … RETURNING, builds the job registered
// for its type and runs its Process; a job that succeeds is deleted, one
// that fails is released for a retry.
package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"gorm.io/gorm"
)

// Job is a job's handler, built from its row.
type Job interface {
	Process(ctx context.Context) error
}

// Row is a row of the jobs table.
type Row struct {
	ID      int64
	Type    string
	Payload []byte
}

// Factory builds a job of one type from its payload.
type Factory func(payload []byte) (Job, error)

// Consumer runs the jobs of the table.
type Consumer struct {
	db        *gorm.DB
	factories map[string]Factory
}

// New returns a consumer running the registered job types.
func New(db *gorm.DB, factories map[string]Factory) *Consumer {
	return &Consumer{db: db, factories: factories}
}

// Enqueue stores a job to run.
func Enqueue(ctx context.Context, db *gorm.DB, typ string, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return db.WithContext(ctx).Exec(`INSERT INTO jobs (type, payload, status) VALUES (?, ?, 'pending')`, typ, payload).Error
}

// Run claims and runs jobs until ctx ends.
func (c *Consumer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := c.processOne(ctx); err != nil {
			log.Print(err)
		}
	}
}

func (c *Consumer) processOne(ctx context.Context) (bool, error) {
	var row Row
	res := c.db.WithContext(ctx).Raw(`
UPDATE jobs SET status = 'processing', attempts = attempts + 1
WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= now()
            ORDER BY run_at FOR UPDATE SKIP LOCKED LIMIT 1)
RETURNING *`).Scan(&row)
	if res.Error != nil {
		return false, res.Error
	}
	if row.ID == 0 {
		return false, nil
	}
	job, err := c.build(row.Type, row.Payload)
	if err != nil {
		c.release(ctx, row, err)
		return true, nil
	}
	if err := job.Process(ctx); err != nil {
		c.release(ctx, row, err)
		return true, nil
	}
	c.db.WithContext(ctx).Exec(`DELETE FROM jobs WHERE id = ?`, row.ID)
	return true, nil
}

func (c *Consumer) build(typ string, payload []byte) (Job, error) {
	f, ok := c.factories[typ]
	if !ok {
		return nil, fmt.Errorf("unknown job type %q", typ)
	}
	return f(payload)
}

func (c *Consumer) release(ctx context.Context, row Row, cause error) {
	log.Printf("job %d: %v", row.ID, cause)
	c.db.WithContext(ctx).Exec(`UPDATE jobs SET status = 'pending', run_at = now() + interval '1 minute' WHERE id = ?`, row.ID)
}
