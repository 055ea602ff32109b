// Package retrylast (whole-program mode): a kafka-go consumer whose
// per-message function retries its write and returns the error on the
// last attempt, so the return nil after the loop is reached by no failed
// attempt; and a batch flush that returns on an empty batch, so its
// fallback loop over the batch runs at least once and commits each
// message after handling it. And a router that returns what a function
// reporting success returns reports success too.
package retrylast

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/segmentio/kafka-go"
)

// Config bounds the retries.
type Config struct {
	MaxRetries int
}

// Consumer records transactions.
type Consumer struct {
	reader *kafka.Reader
	dead   *kafka.Writer
	db     *sql.DB
	cfg    Config
}

// New returns a consumer over r.
func New(r *kafka.Reader, db *sql.DB, cfg Config) *Consumer {
	return &Consumer{reader: r, db: db, cfg: cfg}
}

// Run takes messages one by one.
func (c *Consumer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		c.handle(ctx, msg)
	}
}

// RunBatch takes messages a batch at a time.
func (c *Consumer) RunBatch(ctx context.Context) {
	var batch []kafka.Message
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		batch = append(batch, msg)
		if len(batch) == 16 {
			c.flush(ctx, batch)
			batch = nil
		}
	}
}

// handle commits the message when it was recorded, or when it failed
// and was published to the dead-letter topic.
func (c *Consumer) handle(ctx context.Context, msg kafka.Message) {
	if err := c.record(ctx, msg); err != nil {
		if err := c.dead.WriteMessages(ctx, msg); err != nil {
			log.Fatal(err)
		}
	}
	if err := c.reader.CommitMessages(ctx, msg); err != nil {
		log.Print(err)
	}
}

// record retries the insert and returns its error on the last attempt:
// the loop never ends by its test after an attempt.
func (c *Consumer) record(ctx context.Context, msg kafka.Message) error {
	var err error
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		_, err = c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value)
		if err == nil {
			return nil
		}
		if attempt == c.cfg.MaxRetries {
			return fmt.Errorf("after %d attempts: %w", attempt+1, err)
		}
	}
	return nil
}

// recordBelow is record with the bound tested as attempt < n and the last
// attempt as attempt == n-1.
func (c *Consumer) recordBelow(ctx context.Context, msg kafka.Message) error {
	var err error
	for attempt := 0; attempt < c.cfg.MaxRetries; attempt++ {
		_, err = c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value)
		if err == nil {
			return nil
		}
		if attempt == c.cfg.MaxRetries-1 {
			return err
		}
	}
	return nil
}

// recordGivingUp breaks out of the loop on its last attempt: the return
// nil after the loop is reached by the failure.
func (c *Consumer) recordGivingUp(ctx context.Context, msg kafka.Message) error {
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		_, err := c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value)
		if err == nil {
			return nil
		}
		if attempt == c.cfg.MaxRetries {
			break
		}
	}
	return nil
}

// RunBelow takes messages one by one and records them with recordBelow.
func (c *Consumer) RunBelow(ctx context.Context) {
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		if err := c.recordBelow(ctx, msg); err != nil {
			return // not committed: read again after a restart
		}
		c.reader.CommitMessages(ctx, msg)
	}
}

// RunGivingUp commits what recordGivingUp reports as recorded.
func (c *Consumer) RunGivingUp(ctx context.Context) {
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		if err := c.recordGivingUp(ctx, msg); err != nil {
			return
		}
		c.reader.CommitMessages(ctx, msg) // want `ack kafka.Reader.CommitMessages in handler Consumer.RunGivingUp also runs when sql.DB.ExecContext \(inside retrylast.Consumer.recordGivingUp, which reports success\) fails`
	}
}

// flush records the batch in one statement; when that fails it falls back
// to one message at a time, each committed by handle. An empty batch
// returns at once, so the fallback loop runs at least once.
func (c *Consumer) flush(ctx context.Context, batch []kafka.Message) {
	if len(batch) == 0 {
		return
	}
	if _, err := c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (id) DO NOTHING`, keys(batch), values(batch)); err == nil {
		if err := c.reader.CommitMessages(ctx, batch...); err != nil {
			log.Print(err)
		}
		return
	}
	for _, msg := range batch {
		c.handle(ctx, msg)
	}
}

func keys(batch []kafka.Message) []string {
	ks := make([]string, len(batch))
	for i, m := range batch {
		ks[i] = string(m.Key)
	}
	return ks
}

func values(batch []kafka.Message) []string {
	vs := make([]string, len(batch))
	for i, m := range batch {
		vs[i] = string(m.Value)
	}
	return vs
}

// RunRouted commits what route reports as handled: route returns store's
// result, and store logs a failed insert and reports success.
func (c *Consumer) RunRouted(ctx context.Context) {
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		if err := c.route(ctx, msg); err != nil {
			return
		}
		c.reader.CommitMessages(ctx, msg) // want `ack kafka.Reader.CommitMessages in handler Consumer.RunRouted also runs when sql.DB.ExecContext \(inside retrylast.Consumer.store, which reports success\) fails`
	}
}

func (c *Consumer) route(ctx context.Context, msg kafka.Message) error {
	if len(msg.Value) == 0 {
		return nil
	}
	return c.store(ctx, msg)
}

func (c *Consumer) store(ctx context.Context, msg kafka.Message) error {
	if _, err := c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value); err != nil {
		log.Print(err)
	}
	return nil
}
