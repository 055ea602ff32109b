// Package kafka holds Kafka consumers on sarama and segmentio/kafka-go.
package kafka

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/IBM/sarama"
	"github.com/idemkit/idem/guard"
	"github.com/redis/go-redis/v9"
	kafkago "github.com/segmentio/kafka-go"

	"example.com/realmod/db"
	"example.com/realmod/repo"
	"example.com/realmod/sms"
)

type Event struct {
	ID     string `json:"id"`
	UserID int64  `json:"user_id"`
	Day    string `json:"day"`
	Amount int64  `json:"amount"`
	Phone  string `json:"phone"`
}

// StatsHandler is a sarama consumer-group handler; truth is on ConsumeClaim.
type StatsHandler struct {
	Q     *db.Queries
	RDB   *redis.Client
	Store *guard.SQLStore
}

func (h *StatsHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *StatsHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM001
func (h *StatsHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		var e Event
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.Q.BumpDailyStats(sess.Context(), e.Day, e.Amount); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

type RedisStats struct{ RDB *redis.Client }

func (h *RedisStats) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *RedisStats) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: ok
func (h *RedisStats) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e Event
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		key := fmt.Sprintf("seen:%s:%d:%d", msg.Topic, msg.Partition, msg.Offset)
		fresh, err := h.RDB.SetNX(ctx, key, 1, 7*24*time.Hour).Result()
		if err != nil {
			return err
		}
		if fresh {
			if err := h.RDB.HIncrBy(ctx, "gmv:"+e.Day, "orders", 1).Err(); err != nil {
				return err
			}
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

type PointsHandler struct{ Points repo.PointsRepo }

func (h *PointsHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *PointsHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM001
func (h *PointsHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		var e Event
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			continue
		}
		if err := h.Points.AddPoints(sess.Context(), e.UserID, int(e.Amount/100)); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

type AuditHandler struct{ Q *db.Queries }

func (h *AuditHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *AuditHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM002 IDEM001
func (h *AuditHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		sess.MarkMessage(msg, "")
		if err := h.Q.InsertAudit(sess.Context(), "order", msg.Value); err != nil {
			log.Printf("audit: %v", err)
		}
	}
	return nil
}

type FanOut struct {
	Q     *db.Queries
	Store *guard.SQLStore
}

func (h *FanOut) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *FanOut) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// truth: bug IDEM002
func (h *FanOut) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var e Event
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			continue
		}
		go func() {
			_, err := h.Store.Do(ctx, "add_points", e.ID, msg.Value, func(ctx context.Context, tx *sql.Tx) error {
				return h.Q.WithTx(tx).AddPoints(ctx, int32(e.Amount/100), e.UserID)
			})
			if err != nil {
				log.Printf("add points: %v", err)
			}
		}()
		sess.MarkMessage(msg, "")
	}
	return nil
}

// truth: bug IDEM007 IDEM001
func AuditReadCommit(ctx context.Context, q *db.Queries) error {
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: []string{"kafka:9092"}, GroupID: "audit", Topic: "orders"})
	defer r.Close()
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return err
		}
		if err := q.InsertAudit(ctx, "order", m.Value); err != nil {
			log.Printf("audit: %v", err)
		}
	}
}

// truth: ok
func DeductFetchCommit(ctx context.Context, r *kafkago.Reader, st *guard.SQLStore, q *db.Queries) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var e struct {
			OrderID string
			SKU     string
			Qty     int32
		}
		if err := json.Unmarshal(m.Value, &e); err != nil {
			_ = r.CommitMessages(ctx, m)
			continue
		}
		if _, err := st.Do(ctx, "deduct_inventory", e.OrderID, m.Value, func(ctx context.Context, tx *sql.Tx) error {
			return q.WithTx(tx).DeductStock(ctx, e.Qty, e.SKU)
		}); err != nil {
			return err
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// truth: ok
func SMSWithProviderKey(ctx context.Context, r *kafkago.Reader, c *sms.Client) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var e Event
		if err := json.Unmarshal(m.Value, &e); err != nil {
			_ = r.CommitMessages(ctx, m)
			continue
		}
		if err := c.SendWithKey(ctx, e.Phone, "Your code", "sms-"+e.ID); err != nil {
			return err
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// truth: bug IDEM001
func SMSNaive(ctx context.Context, r *kafkago.Reader, c *sms.Client) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var e Event
		if err := json.Unmarshal(m.Value, &e); err != nil {
			_ = r.CommitMessages(ctx, m)
			continue
		}
		if err := c.Send(ctx, e.Phone, "Your order shipped"); err != nil {
			return err
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}
