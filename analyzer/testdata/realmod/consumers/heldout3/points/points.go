// Package points holds add_points consumers on RabbitMQ (amqp091-go), with
// the balance in PostgreSQL or Redis.
package points

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/repo"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

// PointsEarned is the body of points.earned.
type PointsEarned struct {
	OrderID string `json:"order_id"`
	UserID  int64  `json:"user_id"`
	Points  int64  `json:"points"`
}

func parse(d amqp.Delivery) (PointsEarned, bool) {
	var ev PointsEarned
	if err := json.Unmarshal(d.Body, &ev); err != nil || ev.OrderID == "" || ev.UserID == 0 {
		return ev, false
	}
	return ev, true
}

func pointsKey(ev PointsEarned) string {
	var b guard.KeyBuilder
	b.String(ev.OrderID)
	return b.Key()
}

// Service wires the points consumers.
type Service struct {
	Ch    *amqp.Channel
	DB    *sql.DB
	RDB   *redis.Client
	Store *redisguard.Store
	SQL   *guard.SQLStore
	Repo  repo.PointsRepo
	Log   *slog.Logger
}

// ConsumeRedis credits points in a Redis hash through redisguard: the dedup
// record and the HINCRBY go out in one MULTI; Ack only after Do returned,
// requeue on a transient error, dead-letter a poison body.
//
// truth: ok
func (s *Service) ConsumeRedis(ctx context.Context) error {
	deliveries, err := s.Ch.ConsumeWithContext(ctx, "points.earned.redis", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		ev, ok := parse(d)
		if !ok {
			_ = d.Reject(false)
			continue
		}
		_, err := s.Store.Do(ctx, "add_points_redis", pointsKey(ev), nil, func(ctx context.Context, pipe redis.Pipeliner) error {
			pipe.HIncrBy(ctx, "points", strconv.FormatInt(ev.UserID, 10), ev.Points)
			return nil
		})
		if err != nil {
			s.Log.Warn("add points", "order", ev.OrderID, "err", err)
			_ = d.Nack(false, !guard.Permanent(err))
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// ConsumeSetNX marks the order with SET NX and then increments in a second
// command: a crash between the two leaves the marker and no points, and the
// redelivery skips the order.
//
// truth: bug IDEM006
func (s *Service) ConsumeSetNX(ctx context.Context) error {
	deliveries, err := s.Ch.ConsumeWithContext(ctx, "points.earned.nx", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		ev, ok := parse(d)
		if !ok {
			_ = d.Reject(false)
			continue
		}
		first, err := s.RDB.SetNX(ctx, "points:seen:"+ev.OrderID, 1, 72*time.Hour).Result()
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		if !first {
			_ = d.Ack(false)
			continue
		}
		if err := s.RDB.IncrBy(ctx, "points:"+strconv.FormatInt(ev.UserID, 10), ev.Points).Err(); err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// ConsumeAutoAck dedups properly through guard.SQLStore, but the consumer
// runs with autoAck: when the database is down the message is already gone
// and the points are never credited.
//
// truth: bug IDEM007
func (s *Service) ConsumeAutoAck(ctx context.Context) error {
	deliveries, err := s.Ch.Consume("points.earned.fast", "points-fast", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		ev, ok := parse(d)
		if !ok {
			continue
		}
		_, err := s.SQL.Do(ctx, "add_points", pointsKey(ev), nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID)
			return err
		})
		if err != nil {
			s.Log.Error("add points", "err", err)
		}
	}
	return nil
}

// ConsumeEarlyAck acks on receipt "to keep the queue moving" and then runs a
// correctly deduplicated transaction: a crash or a failed transaction after
// the ack loses the points.
//
// truth: bug IDEM002
func (s *Service) ConsumeEarlyAck(ctx context.Context) error {
	deliveries, err := s.Ch.ConsumeWithContext(ctx, "points.earned.early", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		if err := d.Ack(false); err != nil {
			return err
		}
		ev, ok := parse(d)
		if !ok {
			continue
		}
		tx, err := s.DB.BeginTx(ctx, nil)
		if err != nil {
			s.Log.Error("begin", "err", err)
			continue
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO points_ledger (order_id, user_id, points) VALUES ($1, $2, $3) ON CONFLICT (order_id) DO NOTHING`, ev.OrderID, ev.UserID, ev.Points)
		if err != nil {
			_ = tx.Rollback()
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_ = tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID); err != nil {
			_ = tx.Rollback()
			continue
		}
		if err := tx.Commit(); err != nil {
			s.Log.Error("commit", "err", err)
		}
	}
	return nil
}

// HandleDeferredAck is called per delivery by a worker pool. It defers the
// ack, so the ack also runs when the guarded transaction fails: a transient
// database error swallows the message.
//
// truth: bug IDEM003
func (s *Service) HandleDeferredAck(ctx context.Context, d amqp.Delivery) error {
	defer d.Ack(false) //nolint:errcheck
	ev, ok := parse(d)
	if !ok {
		return errors.New("points: bad body")
	}
	_, err := s.SQL.Do(ctx, "add_points", pointsKey(ev), nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID)
		return err
	})
	return err
}

// HandleViaRepo credits points through the injected PointsRepo (an UPDATE
// points = points + n behind an interface) with no dedup at all.
//
// truth: bug IDEM001
func (s *Service) HandleViaRepo(ctx context.Context, d amqp.Delivery) {
	ev, ok := parse(d)
	if !ok {
		_ = d.Reject(false)
		return
	}
	if err := s.Repo.AddPoints(ctx, ev.UserID, int(ev.Points)); err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}
