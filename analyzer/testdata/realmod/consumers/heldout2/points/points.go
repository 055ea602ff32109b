// Package points holds the loyalty service's Kafka consumers (add_points):
// sarama consumer-group handlers and kafka-go readers.
package points

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
	"github.com/idemkit/idem/guard/pgxguard"
	"github.com/idemkit/idem/guard/redisguard"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"

	"example.com/realmod/db"
	"example.com/realmod/repo"
)

// PointsEarned is published by the order service when an order completes.
type PointsEarned struct {
	EventID string `json:"event_id"`
	UserID  int64  `json:"user_id"`
	Points  int    `json:"points"`
}

func parse(b []byte) (PointsEarned, error) {
	var ev PointsEarned
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, err
	}
	if ev.EventID == "" {
		return ev, errors.New("points: missing event_id")
	}
	return ev, nil
}

func header(m kafka.Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// PointsHandler is a sarama.ConsumerGroupHandler with an injected repository.
type PointsHandler struct {
	Points *repo.PGPoints
}

func (h *PointsHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *PointsHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim credits points and marks the offset; a rebalance or crash
// before the offset commit replays the batch and credits the points again.
//
// truth: bug IDEM001
func (h *PointsHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		ev, err := parse(msg.Value)
		if err != nil {
			log.Printf("skip offset %d: %v", msg.Offset, err)
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.Points.AddPoints(sess.Context(), ev.UserID, ev.Points); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// LedgerHandler writes a points ledger keyed by event id.
type LedgerHandler struct {
	Pool *pgxpool.Pool
}

func (h *LedgerHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *LedgerHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim inserts the ledger line with ON CONFLICT DO NOTHING and only
// bumps the balance when the line is new, both inside one pgx transaction;
// the offset is marked after commit.
//
// truth: ok
func (h *LedgerHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		ev, err := parse(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "bad payload")
			continue
		}
		err = pgx.BeginFunc(ctx, h.Pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx,
				`INSERT INTO points_ledger (event_id, user_id, delta) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING`,
				ev.EventID, ev.UserID, ev.Points)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return nil
			}
			_, err = tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, ev.Points, ev.UserID)
			return err
		})
		if err != nil {
			return fmt.Errorf("ledger %s: %w", ev.EventID, err)
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// AsyncHandler hands each message to a goroutine so slow DB calls do not
// block the partition.
type AsyncHandler struct {
	Store *pgxguard.Store
}

func (h *AsyncHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *AsyncHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim marks each offset right after spawning the (guarded) credit in
// a goroutine it never waits for: a crash or rebalance after MarkMessage and
// before the goroutine commits loses the points.
//
// truth: bug IDEM002
func (h *AsyncHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		ev, err := parse(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		go func(ev PointsEarned) {
			_, err := h.Store.Do(context.Background(), "add_points", ev.EventID, nil, func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, ev.Points, ev.UserID)
				return err
			})
			if err != nil {
				log.Printf("add_points %s: %v", ev.EventID, err)
			}
		}(ev)
		sess.MarkMessage(msg, "")
	}
	return nil
}

// BatchCrediter reads with kafka-go and commits once per batch.
type BatchCrediter struct {
	Reader *kafka.Reader
	DB     *sql.DB
	Q      *db.Queries
	Redis  *redis.Client
	RG     *redisguard.Store
	Pool   *pgxpool.Pool
}

// RunBatches fetches up to 100 messages, credits each and commits the batch.
// A failure in the middle of a batch returns without committing, so the
// already-credited messages of the batch are credited again on restart.
//
// truth: bug IDEM001
func (c *BatchCrediter) RunBatches(ctx context.Context) error {
	for {
		batch := make([]kafka.Message, 0, 100)
		deadline := time.Now().Add(time.Second)
		for len(batch) < cap(batch) && time.Now().Before(deadline) {
			m, err := c.Reader.FetchMessage(ctx)
			if err != nil {
				return err
			}
			batch = append(batch, m)
		}
		for _, m := range batch {
			ev, err := parse(m.Value)
			if err != nil {
				continue
			}
			if _, err := c.DB.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID); err != nil {
				return err
			}
		}
		if err := c.Reader.CommitMessages(ctx, batch...); err != nil {
			return err
		}
	}
}

// RunInboxBatches is the same batch consumer with an sqlc inbox: for each
// message, MarkProcessed and AddPoints share one transaction and AddPoints
// only runs when MarkProcessed inserted a row. Replaying a half-done batch
// skips the messages already committed.
//
// truth: ok
func (c *BatchCrediter) RunInboxBatches(ctx context.Context) error {
	for {
		batch := make([]kafka.Message, 0, 50)
		for len(batch) < cap(batch) {
			m, err := c.Reader.FetchMessage(ctx)
			if err != nil {
				return err
			}
			batch = append(batch, m)
		}
		for _, m := range batch {
			ev, err := parse(m.Value)
			if err != nil {
				continue
			}
			if err := c.creditOnce(ctx, ev); err != nil {
				return err
			}
		}
		if err := c.Reader.CommitMessages(ctx, batch...); err != nil {
			return err
		}
	}
}

func (c *BatchCrediter) creditOnce(ctx context.Context, ev PointsEarned) error {
	tx, err := c.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := c.Q.WithTx(tx)
	n, err := q.MarkProcessed(ctx, "add_points", ev.EventID)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := q.AddPoints(ctx, int32(ev.Points), ev.UserID); err != nil {
		return err
	}
	return tx.Commit()
}

// RunMarkThenCredit calls MarkProcessed in the same transaction as the
// credit but never looks at its rows-affected count, so a duplicate inserts
// nothing and still credits the points again.
//
// truth: bug IDEM001 IDEM004
func (c *BatchCrediter) RunMarkThenCredit(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		ev, err := parse(m.Value)
		if err != nil {
			_ = c.Reader.CommitMessages(ctx, m)
			continue
		}
		tx, err := c.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		q := c.Q.WithTx(tx)
		if _, err := q.MarkProcessed(ctx, "add_points", ev.EventID); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := q.AddPoints(ctx, int32(ev.Points), ev.UserID); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunRedisSetNX marks the event in Redis with SET NX and then increments the
// balance with a separate command. Duplicates are skipped, but a crash
// between SETNX and INCRBY leaves the marker without the credit: the
// redelivery is then skipped and the points are lost.
//
// truth: bug IDEM006
func (c *BatchCrediter) RunRedisSetNX(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		eventID := header(m, "event-id")
		ev, err := parse(m.Value)
		if err != nil || eventID == "" {
			_ = c.Reader.CommitMessages(ctx, m)
			continue
		}
		fresh, err := c.Redis.SetNX(ctx, "points:seen:"+eventID, 1, 7*24*time.Hour).Result()
		if err != nil {
			return err
		}
		if fresh {
			if err := c.Redis.IncrBy(ctx, "points:balance:"+strconv.FormatInt(ev.UserID, 10), int64(ev.Points)).Err(); err != nil {
				return err
			}
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunRedisGuarded keeps the balance in Redis and credits it through
// redisguard.Do, which queues the dedup record and the HINCRBY in one
// MULTI/EXEC.
//
// truth: ok
func (c *BatchCrediter) RunRedisGuarded(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		ev, err := parse(m.Value)
		if err != nil {
			_ = c.Reader.CommitMessages(ctx, m)
			continue
		}
		_, err = c.RG.Do(ctx, "add_points", ev.EventID, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
			pipe.HIncrBy(ctx, "points:"+strconv.FormatInt(ev.UserID, 10), "balance", int64(ev.Points))
			return nil
		})
		if err != nil {
			return err
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunSplitTx checks the inbox with an autocommit INSERT ... ON CONFLICT DO
// NOTHING on the pool and then credits in a second statement. The record
// commits before the credit: a crash in between marks the event processed
// without ever crediting it.
//
// truth: bug IDEM006
func (c *BatchCrediter) RunSplitTx(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		ev, err := parse(m.Value)
		if err != nil {
			_ = c.Reader.CommitMessages(ctx, m)
			continue
		}
		tag, err := c.Pool.Exec(ctx, `INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.EventID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if _, err := c.Pool.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, ev.Points, ev.UserID); err != nil {
				return err
			}
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunUniqueViolation inserts into processed_events inside the transaction and
// treats 23505 as "already done"; the credit follows in the same
// transaction.
//
// truth: ok
func (c *BatchCrediter) RunUniqueViolation(ctx context.Context) error {
	for {
		m, err := c.Reader.FetchMessage(ctx)
		if err != nil {
			return err
		}
		ev, err := parse(m.Value)
		if err != nil {
			_ = c.Reader.CommitMessages(ctx, m)
			continue
		}
		tx, err := c.Pool.Begin(ctx)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO processed_events (event_id) VALUES ($1)`, ev.EventID)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			_ = tx.Rollback(ctx)
			if err := c.Reader.CommitMessages(ctx, m); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET points = points + $1 WHERE user_id = $2`, ev.Points, ev.UserID); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		if err := c.Reader.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}
