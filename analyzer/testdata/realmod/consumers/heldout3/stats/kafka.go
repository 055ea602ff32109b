package stats

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"

	"github.com/segmentio/kafka-go"

	"example.com/realmod/db"
	"github.com/idemkit/idem/guard"
)

// OrderPaid is the Kafka body of orders.paid.
type OrderPaid struct {
	OrderID string `json:"order_id"`
	UserID  int64  `json:"user_id"`
	Day     string `json:"day"`
	Amount  int64  `json:"amount"`
}

// DailyTotals is published by the billing job: the day's totals so far.
type DailyTotals struct {
	Day    string `json:"day"`
	Orders int64  `json:"orders"`
	GMV    int64  `json:"gmv"`
}

// KafkaStats counts orders per day in PostgreSQL.
type KafkaStats struct {
	R   *kafka.Reader
	DB  *sql.DB
	Q   *db.Queries
	SQL *guard.SQLStore
	Log *slog.Logger
}

func (k *KafkaStats) fetchPaid(ctx context.Context) (kafka.Message, OrderPaid, bool, error) {
	m, err := k.R.FetchMessage(ctx)
	if err != nil {
		return m, OrderPaid{}, false, err
	}
	var ev OrderPaid
	if err := json.Unmarshal(m.Value, &ev); err != nil || ev.OrderID == "" || ev.Day == "" {
		return m, ev, false, nil
	}
	return m, ev, true, nil
}

// Snapshot stores the billing job's totals with an upsert that overwrites
// (SET orders = EXCLUDED.orders): replaying a message writes the same row.
// Commit after the write.
//
// truth: ok
func (k *KafkaStats) Snapshot(ctx context.Context) error {
	for {
		m, err := k.R.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var t DailyTotals
		if err := json.Unmarshal(m.Value, &t); err == nil && t.Day != "" {
			if _, err := k.DB.ExecContext(ctx,
				`INSERT INTO daily_totals (day, orders, gmv) VALUES ($1, $2, $3)
				 ON CONFLICT (day) DO UPDATE SET orders = EXCLUDED.orders, gmv = EXCLUDED.gmv`,
				t.Day, t.Orders, t.GMV); err != nil {
				return err
			}
		}
		if err := k.R.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// AutoCommit counts through guard.SQLStore correctly, but reads with
// ReadMessage on a group reader, which commits the offset as it returns the
// message: a failed or crashed Do loses the count.
//
// truth: bug IDEM007
func (k *KafkaStats) AutoCommit(ctx context.Context) error {
	for {
		m, err := k.R.ReadMessage(ctx)
		if err != nil {
			return err
		}
		var ev OrderPaid
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			continue
		}
		var b guard.KeyBuilder
		b.String(ev.OrderID)
		b.String(ev.Day)
		_, err = k.SQL.Do(ctx, "update_stats", b.Key(), nil, func(ctx context.Context, tx *sql.Tx) error {
			return k.Q.WithTx(tx).BumpDailyStats(ctx, ev.Day, ev.Amount)
		})
		if err != nil {
			k.Log.Error("stats", "offset", m.Offset, "err", err)
		}
	}
}

// Bump adds the order to the day's totals with the accumulating sqlc upsert
// and no dedup; a redelivery after a rebalance counts GMV twice.
//
// truth: bug IDEM001
func (k *KafkaStats) Bump(ctx context.Context) error {
	for {
		m, ev, ok, err := k.fetchPaid(ctx)
		if err != nil {
			return err
		}
		if ok {
			if err := k.Q.BumpDailyStats(ctx, ev.Day, ev.Amount); err != nil {
				return err
			}
		}
		if err := k.R.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// Flagged counts each order once with a conditional UPDATE on the order row
// (stats_counted false → true) whose rows affected decides, in the same
// transaction, whether the day's counters move.
//
// truth: ok
func (k *KafkaStats) Flagged(ctx context.Context) error {
	for {
		m, ev, ok, err := k.fetchPaid(ctx)
		if err != nil {
			return err
		}
		if ok {
			if err := k.countOnce(ctx, ev); err != nil {
				return err
			}
		}
		if err := k.R.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

func (k *KafkaStats) countOnce(ctx context.Context, ev OrderPaid) error {
	tx, err := k.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	res, err := tx.ExecContext(ctx, `UPDATE orders SET stats_counted = true WHERE id = $1 AND NOT stats_counted`, ev.OrderID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if err := k.Q.WithTx(tx).BumpDailyStats(ctx, ev.Day, ev.Amount); err != nil {
		return err
	}
	return tx.Commit()
}

// ClearCart empties the user's cart once the order is paid: a DELETE, which
// a redelivery repeats harmlessly. Commit after the delete.
//
// truth: ok
func (k *KafkaStats) ClearCart(ctx context.Context, m kafka.Message) error {
	var ev OrderPaid
	if err := json.Unmarshal(m.Value, &ev); err != nil {
		return k.R.CommitMessages(ctx, m)
	}
	if _, err := k.DB.ExecContext(ctx, `DELETE FROM cart_items WHERE user_id = $1`, ev.UserID); err != nil {
		return err
	}
	return k.R.CommitMessages(ctx, m)
}
