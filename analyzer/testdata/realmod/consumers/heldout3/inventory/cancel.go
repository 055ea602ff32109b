package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"
)

// TxStarter is what CancelConsumer needs of a pgx pool; injected so tests
// can pass a fake.
type TxStarter interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// CancelConsumer puts stock back when orders.cancelled arrives.
type CancelConsumer struct {
	Pool   TxStarter
	Reader *kafka.Reader
	Log    *slog.Logger
}

// Run fetches messages, hands each to Handle and commits its offset only
// after Handle succeeded; a poison message is committed and skipped; any
// other error stops the reader uncommitted.
//
// truth: ok
func (c *CancelConsumer) Run(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		if err := c.Handle(ctx, m); err != nil && !errors.Is(err, errPoison) {
			return err
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// Handle restores stock for one cancelled order: the inbox insert (ON
// CONFLICT DO NOTHING, rows affected checked) and the increment share one
// pgx transaction.
//
// truth: ok
func (c *CancelConsumer) Handle(ctx context.Context, m kafka.Message) error {
	var ev OrderCreated
	if err := json.Unmarshal(m.Value, &ev); err != nil {
		c.Log.Warn("poison", "offset", m.Offset)
		return errPoison
	}
	tx, err := c.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	tag, err := tx.Exec(ctx, `INSERT INTO inbox (consumer, message_id) VALUES ('cancel_order', $1) ON CONFLICT DO NOTHING`, ev.OrderID+"/"+ev.SKU)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE stock SET qty = qty + $1 WHERE sku = $2`, ev.Quantity, ev.SKU); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
