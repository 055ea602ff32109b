// Package points holds the loyalty service's consumers: sarama consumer
// groups on orders.paid, with balances in PostgreSQL (pgx) or Redis.
package points

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"strconv"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/consumers/heldout/platform"
)

// OrderPaid is the payload of orders.paid.
type OrderPaid struct {
	OrderID string `json:"order_id"`
	UserID  int64  `json:"user_id"`
	Amount  int64  `json:"amount_cents"`
}

func pointsFor(e OrderPaid) int64 { return e.Amount / 100 }

// LedgerHandler credits points in PostgreSQL, claiming the order id in the
// same transaction through platform.ClaimEvent.
type LedgerHandler struct{ Pool *pgxpool.Pool }

func (h *LedgerHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *LedgerHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: ok
func (h *LedgerHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			log.Printf("points: skipping bad message at %d: %v", msg.Offset, err)
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := h.Pool.Begin(ctx)
		if err != nil {
			return err
		}
		fresh, err := platform.ClaimEvent(ctx, tx, "add_points", e.OrderID)
		if err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if !fresh {
			_ = tx.Rollback(ctx)
			sess.MarkMessage(msg, "")
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, pointsFor(e), e.UserID); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// GrantHandler writes a grant row keyed by order id; the unique violation
// on a redelivery is the dedup.
type GrantHandler struct{ Pool *pgxpool.Pool }

func (h *GrantHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *GrantHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: ok
func (h *GrantHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.grant(ctx, e); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

func (h *GrantHandler) grant(ctx context.Context, e OrderPaid) error {
	tx, err := h.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `INSERT INTO point_grants (order_id, user_id, points) VALUES ($1, $2, $3)`, e.OrderID, e.UserID, pointsFor(e))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return nil // granted before
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, pointsFor(e), e.UserID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ConflictIgnoredHandler inserts the marker with ON CONFLICT DO NOTHING but
// only looks at the error, so a redelivery credits again.
type ConflictIgnoredHandler struct{ Pool *pgxpool.Pool }

func (h *ConflictIgnoredHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *ConflictIgnoredHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM004 IDEM001
func (h *ConflictIgnoredHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := h.Pool.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO consumed_events (consumer, event_id) VALUES ('add_points', $1) ON CONFLICT DO NOTHING`, e.OrderID); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, pointsFor(e), e.UserID); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// RedisLockHandler serialises credits per user with a Redis lock.
type RedisLockHandler struct{ RDB *redis.Client }

func (h *RedisLockHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *RedisLockHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM001
func (h *RedisLockHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		lockKey := "lock:points:" + strconv.FormatInt(e.UserID, 10)
		for {
			got, err := h.RDB.SetNX(ctx, lockKey, msg.Offset, 5*time.Second).Result()
			if err != nil {
				return err
			}
			if got {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		err := h.RDB.IncrBy(ctx, "points:"+strconv.FormatInt(e.UserID, 10), pointsFor(e)).Err()
		h.RDB.Del(ctx, lockKey)
		if err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// RedisNXHandler marks each order once with SET NX and forgets the mark
// when the credit fails, so the retry can run.
type RedisNXHandler struct{ RDB *redis.Client }

func (h *RedisNXHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *RedisNXHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: ok
func (h *RedisNXHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		mark := "points:granted:" + e.OrderID
		fresh, err := h.RDB.SetNX(ctx, mark, 1, 30*24*time.Hour).Result()
		if err != nil {
			return err
		}
		if !fresh {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.RDB.IncrBy(ctx, "points:"+strconv.FormatInt(e.UserID, 10), pointsFor(e)).Err(); err != nil {
			h.RDB.Del(ctx, mark)
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// RequestIDHandler dedups on a request id minted by the consumer itself, so
// every redelivery gets a new id and passes the check.
type RequestIDHandler struct{ RDB *redis.Client }

func (h *RequestIDHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *RequestIDHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM001
func (h *RequestIDHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e OrderPaid
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		reqID := platform.NewRequestID()
		fresh, err := h.RDB.SetNX(ctx, "points:req:"+reqID, 1, 24*time.Hour).Result()
		if err != nil {
			return err
		}
		if fresh {
			if err := h.RDB.IncrBy(ctx, "points:"+strconv.FormatInt(e.UserID, 10), pointsFor(e)).Err(); err != nil {
				return err
			}
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// GrantSignupBonus reads user.registered from a Redis stream and credits a
// one-time bonus after looking up whether it was granted.
//
// truth: bug IDEM005
func GrantSignupBonus(ctx context.Context, rdb *redis.Client, consumer string) error {
	for {
		streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group:    "bonus",
			Consumer: consumer,
			Streams:  []string{"users", ">"},
			Count:    50,
			Block:    5 * time.Second,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		for _, s := range streams {
			for _, m := range s.Messages {
				user, _ := m.Values["user_id"].(string)
				n, err := rdb.Exists(ctx, "bonus:granted:"+user).Result()
				if err != nil {
					continue
				}
				if n == 1 {
					rdb.XAck(ctx, "users", "bonus", m.ID)
					continue
				}
				if err := rdb.IncrBy(ctx, "points:"+user, 500).Err(); err != nil {
					continue
				}
				rdb.Set(ctx, "bonus:granted:"+user, m.ID, 0)
				rdb.XAck(ctx, "users", "bonus", m.ID)
			}
		}
	}
}
