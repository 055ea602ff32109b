// Package batchx: a consumer's own batch fetcher over kafka-go. fetchBatch
// fetches and returns the messages wrapped in the consumer's own type,
// keeping the client's message for the commit; the loop hands each batch
// to the handler it was started with and commits when it returns nil. The
// fetcher is a fetch API, its type a Kafka message, the handlers handlers;
// a handler whose failure the loop goes past is told so (the loop, whose
// every callee is such a handler, is not reported itself).
package batchx

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"
)

type message struct {
	value []byte
	raw   kafka.Message
}

// Consumers runs the service's consumer groups.
type Consumers struct {
	rdb *redis.Client
}

func (c *Consumers) fetchBatch(ctx context.Context, r *kafka.Reader) ([]message, error) {
	var batch []message
	for len(batch) < 100 {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return batch, err
		}
		batch = append(batch, message{value: m.Value, raw: m})
	}
	return batch, nil
}

func (c *Consumers) runGroup(ctx context.Context, r *kafka.Reader, handler func(context.Context, []message) error) {
	for ctx.Err() == nil {
		batch, err := c.fetchBatch(ctx, r)
		if err != nil {
			continue
		}
		if err := handler(ctx, batch); err != nil { // each handler is told where its failure is skipped
			log.Print(err)
			continue
		}
		for _, m := range batch {
			_ = r.CommitMessages(ctx, m.raw)
		}
	}
}

// handleTrade adds each trade to the holdings: again on every redelivery.
func (c *Consumers) handleTrade(ctx context.Context, msgs []message) error {
	for _, m := range msgs {
		if err := c.rdb.IncrBy(ctx, "holding:"+string(m.value), 1).Err(); err != nil { // want `IDEM001`
			return err // want `handler Consumers.handleTrade returns an error when redis.IntCmd.Err fails, and Consumers.runGroup, which it is handed to, goes on to the next message`
		}
	}
	return nil
}

// handlePrice sets the latest prices: an overwrite, no effect; but a
// failed write the loop goes past is lost as much as an effect.
func (c *Consumers) handlePrice(ctx context.Context, msgs []message) error {
	for _, m := range msgs {
		if err := c.rdb.Set(ctx, "price", m.value, 0).Err(); err != nil {
			return err // want `handler Consumers.handlePrice returns an error when redis.StatusCmd.Err fails, and Consumers.runGroup, which it is handed to, goes on to the next message`
		}
	}
	return nil
}

// Start runs both groups.
func (c *Consumers) Start(ctx context.Context, trades, prices *kafka.Reader) {
	go c.runGroup(ctx, trades, c.handleTrade)
	go c.runGroup(ctx, prices, c.handlePrice)
}
