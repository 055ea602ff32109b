package heldout4

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
)

type orderEvent struct {
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
	Version int64  `json:"version"`
	Amount  int64  `json:"amount"`
	Day     string `json:"day"`
}

// OrderProjection maintains the order_view read model from the order event stream.
type OrderProjection struct {
	Reader *kafka.Reader
	Pool   *pgxpool.Pool
}

// Run projects order status changes. The write is an absolute SET guarded by
// the aggregate version, so a replayed or redelivered event is a no-op; the
// offset is committed only after the write.
//
// truth: ok
func (p *OrderProjection) Run(ctx context.Context) error {
	for {
		m, err := p.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var ev orderEvent
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			slog.Warn("order projection: poison event skipped", "offset", m.Offset)
			if err := p.Reader.CommitMessages(ctx, m); err != nil {
				return err
			}
			continue
		}
		if _, err := p.Pool.Exec(ctx,
			`UPDATE order_view SET status = $1, version = $2 WHERE id = $3 AND version < $2`,
			ev.Status, ev.Version, ev.OrderID); err != nil {
			return err
		}
		if err := p.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RevenueProjection sums revenue per day and stores its own checkpoint.
type RevenueProjection struct {
	Reader *kafka.Reader
	Pool   *pgxpool.Pool
}

// Run keeps a per-partition checkpoint in the same transaction as the
// accumulating update: the conditional upsert only moves the checkpoint
// forward, and when it affects no row the event was already projected and the
// increment is skipped. Crash anywhere: both or neither.
//
// truth: ok
func (p *RevenueProjection) Run(ctx context.Context) error {
	for {
		m, err := p.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var ev orderEvent
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			_ = p.Reader.CommitMessages(ctx, m) // poison: skip
			continue
		}
		tx, err := p.Pool.Begin(ctx)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
INSERT INTO projection_checkpoints (projection, part, last_offset) VALUES ('revenue', $1, $2)
ON CONFLICT (projection, part) DO UPDATE SET last_offset = EXCLUDED.last_offset
WHERE projection_checkpoints.last_offset < EXCLUDED.last_offset`, m.Partition, m.Offset)
		if err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if tag.RowsAffected() == 0 {
			_ = tx.Rollback(ctx)
			if err := p.Reader.CommitMessages(ctx, m); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.Exec(ctx,
			`UPDATE daily_revenue SET total = total + $1 WHERE day = $2`, ev.Amount, ev.Day); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		if err := p.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// CartAbandonCounter counts abandoned carts per day.
type CartAbandonCounter struct {
	Reader *kafka.Reader
	Pool   *pgxpool.Pool
}

// Run commits the offset first "so a slow database never stalls the
// partition", then increments the counter: a crash after the commit loses the
// count, and with no dedup a redelivery (rebalance before the commit lands)
// counts twice.
//
// truth: bug IDEM002 IDEM001
func (c *CartAbandonCounter) Run(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
		day := string(m.Key)
		if _, err := c.Pool.Exec(ctx,
			`UPDATE cart_stats SET abandoned = abandoned + 1 WHERE day = $1`, day); err != nil {
			slog.Error("cart stats", "err", err)
		}
	}
}
