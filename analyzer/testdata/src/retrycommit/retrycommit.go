// Package retrycommit (whole-program mode): a kafka-go consumer behind the
// program's own interface over the reader (for tests), that goes on after
// a failed fetch (nothing was fetched) and commits in a loop until the
// commit succeeds (a retried ack, not an ack after a failure).
package retrycommit

import (
	"context"
	"database/sql"
	"log"

	"github.com/segmentio/kafka-go"
)

type messageReader interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Consumer records transactions.
type Consumer struct {
	reader messageReader
	db     *sql.DB
}

// New returns a consumer over r.
func New(r *kafka.Reader, db *sql.DB) *Consumer {
	return &Consumer{reader: r, db: db}
}

// Run records each transaction once (the insert is keyed by the business
// key) and commits it.
func (c *Consumer) Run(ctx context.Context) {
	for {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Print(err)
			continue
		}
		if _, err := c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value); err != nil {
			return // not committed: read again after a restart
		}
		for {
			if err := c.reader.CommitMessages(ctx, msg); err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// RunLossy logs a failed insert and commits anyway.
func (c *Consumer) RunLossy(ctx context.Context) {
	for {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			continue
		}
		if _, err := c.db.ExecContext(ctx, `INSERT INTO transactions (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, msg.Key, msg.Value); err != nil {
			log.Print(err)
		}
		for {
			if err := c.reader.CommitMessages(ctx, msg); err == nil { // want `ack retrycommit.messageReader.CommitMessages in handler Consumer.RunLossy also runs when sql.DB.ExecContext fails: the error is swallowed and the message lost \(IDEM003\)`
				break
			}
		}
	}
}
