// Package stats holds the reporting service's consumers: daily GMV and
// order counts from Redis Streams, segmentio/kafka-go and sarama.
package stats

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/IBM/sarama"
	"github.com/idemkit/idem/guard/redisguard"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	kafkago "github.com/segmentio/kafka-go"

	"example.com/realmod/db"
)

const (
	stream = "orders"
	group  = "stats"
)

func dayOf(v map[string]interface{}) string {
	ts, _ := v["paid_at"].(string)
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02")
}

// AggregateDaily bumps the day's counters in the same MULTI as the dedup
// record (message id + day), then acks the stream entry.
//
// truth: ok
func AggregateDaily(ctx context.Context, rdb *redis.Client, st *redisguard.Store, consumer string) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: group, Consumer: consumer, Streams: []string{stream, ">"}, Count: 100, Block: 2 * time.Second,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				day := dayOf(m.Values)
				amount, _ := strconv.ParseInt(fmt.Sprint(m.Values["amount"]), 10, 64)
				_, err := st.Do(ctx, "update_stats", m.ID+"|"+day, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
					pipe.HIncrBy(ctx, "stats:"+day, "orders", 1)
					pipe.HIncrBy(ctx, "stats:"+day, "gmv", amount)
					return nil
				})
				if err != nil {
					log.Printf("stats %s: %v (left pending)", m.ID, err)
					continue
				}
				if err := rdb.XAck(ctx, stream, group, m.ID).Err(); err != nil {
					return err
				}
			}
		}
	}
}

// AggregateDailyAckFirst acks the batch as soon as it is read, to keep the
// pending list short, then bumps the counters.
//
// truth: bug IDEM002 IDEM001
func AggregateDailyAckFirst(ctx context.Context, rdb *redis.Client, consumer string) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: group, Consumer: consumer, Streams: []string{stream, ">"}, Count: 100, Block: 2 * time.Second,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				rdb.XAck(ctx, stream, group, m.ID)
				day := dayOf(m.Values)
				amount, _ := strconv.ParseInt(fmt.Sprint(m.Values["amount"]), 10, 64)
				pipe := rdb.Pipeline()
				pipe.HIncrBy(ctx, "stats:"+day, "orders", 1)
				pipe.HIncrBy(ctx, "stats:"+day, "gmv", amount)
				if _, err := pipe.Exec(ctx); err != nil {
					log.Printf("stats %s: %v", m.ID, err)
				}
			}
		}
	}
}

// DailyTotal is the totals snapshot the billing system publishes per day.
type DailyTotal struct {
	Day    string `json:"day"`
	GMV    int64  `json:"gmv"`
	Orders int64  `json:"orders"`
}

// SnapshotTotals overwrites the day's row with the published totals; a
// replay writes the same values again.
//
// truth: ok
func SnapshotTotals(ctx context.Context, r *kafkago.Reader, pool *pgxpool.Pool) error {
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return err
		}
		var t DailyTotal
		if err := json.Unmarshal(m.Value, &t); err != nil {
			log.Printf("snapshot: bad message at %d: %v", m.Offset, err)
			continue
		}
		if _, err := pool.Exec(ctx, `INSERT INTO daily_totals (day, gmv, orders) VALUES ($1, $2, $3)
ON CONFLICT (day) DO UPDATE SET gmv = EXCLUDED.gmv, orders = EXCLUDED.orders`, t.Day, t.GMV, t.Orders); err != nil {
			return err
		}
	}
}

// OrderMoney is the payload of order.paid and order.refunded.
type OrderMoney struct {
	OrderID string `json:"order_id"`
	Day     string `json:"day"`
	Amount  int64  `json:"amount"`
}

// Dispatcher routes by the "type" record header.
type Dispatcher struct {
	DB *sql.DB
	Q  *db.Queries
}

func (h *Dispatcher) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *Dispatcher) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM001
func (h *Dispatcher) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderMoney
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		var err error
		switch headerValue(msg, "type") {
		case "order.paid":
			err = h.onPaid(ctx, msg, e)
		case "order.refunded":
			err = h.onRefunded(ctx, e)
		}
		if err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

func headerValue(msg *sarama.ConsumerMessage, key string) string {
	for _, h := range msg.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}

// onPaid records the message position and bumps the day in one transaction.
func (h *Dispatcher) onPaid(ctx context.Context, msg *sarama.ConsumerMessage, e OrderMoney) error {
	tx, err := h.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := h.Q.WithTx(tx)
	n, err := q.MarkProcessed(ctx, "update_stats", fmt.Sprintf("%s/%d/%d", msg.Topic, msg.Partition, msg.Offset))
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := q.BumpDailyStats(ctx, e.Day, e.Amount); err != nil {
		return err
	}
	return tx.Commit()
}

// onRefunded subtracts the refund from the day, with no record of it.
func (h *Dispatcher) onRefunded(ctx context.Context, e OrderMoney) error {
	_, err := h.DB.ExecContext(ctx, `UPDATE daily_stats SET refunds = refunds + 1, gmv = gmv - $1 WHERE day = $2`, e.Amount, e.Day)
	return err
}

// PaidDispatcher routes like Dispatcher but only handles order.paid, every
// branch going through the guarded path.
type PaidDispatcher struct{ Dispatcher }

// truth: ok
func (h *PaidDispatcher) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		if headerValue(msg, "type") != "order.paid" {
			sess.MarkMessage(msg, "")
			continue
		}
		var e OrderMoney
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.onPaid(ctx, msg, e); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}
