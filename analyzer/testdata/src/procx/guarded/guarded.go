// Package guarded is a second shared consumer, one that claims each
// event's id before it hands the event on: its processors' effects run
// once, whatever they are.
package guarded

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"

	"procx/worker"
)

// Consumer runs one Processor over a topic, once per event id.
type Consumer struct {
	reader    *kafka.Reader
	rdb       *redis.Client
	processor worker.Processor
}

// Run consumes until the reader fails.
func (c *Consumer) Run(ctx context.Context) {
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		var e worker.Event
		if err := json.Unmarshal(m.Value, &e); err != nil {
			_ = c.reader.CommitMessages(ctx, m)
			continue
		}
		fresh, err := c.rdb.SetNX(ctx, "seen:"+e.ID, 1, 0).Result()
		if err != nil {
			return
		}
		if !fresh {
			_ = c.reader.CommitMessages(ctx, m)
			continue
		}
		if err := c.processor.Process(ctx, e); err != nil {
			return
		}
		_ = c.reader.CommitMessages(ctx, m)
	}
}

// Ledger ignores events.
type Ledger struct{}

// Audit writes an audit row per event: behind the claim, once.
type Audit struct{ rdb *redis.Client }

// Name names the consumer.
func (l *Ledger) Name() string { return "ledger" }

// Name names the consumer.
func (a *Audit) Name() string { return "audit" }

// Process counts the event.
func (a *Audit) Process(ctx context.Context, e worker.Event) error {
	return a.rdb.IncrBy(ctx, "audit:"+e.UserID, 1).Err()
}

// Process does nothing.
func (l *Ledger) Process(ctx context.Context, e worker.Event) error {
	return nil
}

// Wire builds the guarded consumers.
func Wire(r *kafka.Reader, rdb *redis.Client) []*Consumer {
	return []*Consumer{{reader: r, rdb: rdb, processor: &Audit{rdb: rdb}}, {reader: r, rdb: rdb, processor: &Ledger{}}}
}
