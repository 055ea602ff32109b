// Package rabbit holds RabbitMQ consumers written on amqp091-go.
package rabbit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/idemkit/idem/guard"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	amqp "github.com/rabbitmq/amqp091-go"

	"example.com/realmod/db"
	"example.com/realmod/repo"
	"example.com/realmod/sms"
)

type OrderPlaced struct {
	OrderID string `json:"order_id"`
	UserID  int64  `json:"user_id"`
	SKU     string `json:"sku"`
	Qty     int32  `json:"qty"`
	Phone   string `json:"phone"`
	Amount  int64  `json:"amount"`
}

type Worker struct {
	DB     *sql.DB
	Q      *db.Queries
	Store  *guard.SQLStore
	Pool   *pgxpool.Pool
	SMS    *sms.Client
	Points repo.PointsRepo
	Orders *OrderService
	Log    *slog.Logger
}

// truth: bug IDEM001
func (w *Worker) DeductInventory(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var evt OrderPlaced
		if err := json.Unmarshal(d.Body, &evt); err != nil {
			_ = d.Reject(false)
			continue
		}
		if err := w.Q.DeductStock(ctx, evt.Qty, evt.SKU); err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// truth: ok
func (w *Worker) DeductInventoryGuarded(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var evt OrderPlaced
		if err := json.Unmarshal(d.Body, &evt); err != nil {
			_ = d.Reject(false)
			continue
		}
		_, err := w.Store.Do(ctx, "deduct_inventory", evt.OrderID, d.Body, func(ctx context.Context, tx *sql.Tx) error {
			return w.Q.WithTx(tx).DeductStock(ctx, evt.Qty, evt.SKU)
		})
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// truth: bug IDEM007 IDEM001
func (w *Worker) AddPointsAutoAck(ctx context.Context, ch *amqp.Channel) error {
	msgs, err := ch.Consume("points", "points-worker", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for m := range msgs {
		var evt OrderPlaced
		if err := json.Unmarshal(m.Body, &evt); err != nil {
			continue
		}
		if err := w.Q.AddPoints(ctx, int32(evt.Amount/100), evt.UserID); err != nil {
			w.Log.Error("add points", "err", err)
		}
	}
	return nil
}

// truth: bug IDEM002 IDEM001
func (w *Worker) SendSMSAckFirst(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		_ = d.Ack(false) // ack early so the broker does not redeliver slow messages
		var evt OrderPlaced
		if err := json.Unmarshal(d.Body, &evt); err != nil {
			continue
		}
		if err := w.SMS.Send(ctx, evt.Phone, "Your order "+evt.OrderID+" is confirmed"); err != nil {
			w.Log.Error("sms", "err", err)
		}
	}
}

// truth: bug IDEM003
func (w *Worker) DeductAckOnError(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var evt OrderPlaced
		_ = json.Unmarshal(d.Body, &evt)
		_, err := w.Store.Do(ctx, "deduct_inventory", evt.OrderID, d.Body, func(ctx context.Context, tx *sql.Tx) error {
			return w.Q.WithTx(tx).DeductStock(ctx, evt.Qty, evt.SKU)
		})
		if err != nil {
			w.Log.Error("deduct failed, dropping", "err", err)
			_ = d.Ack(false)
			continue
		}
		_ = d.Ack(false)
	}
}

// truth: ok
func (w *Worker) LogOnly(deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		w.Log.Info("received", "routing_key", d.RoutingKey, "size", len(d.Body))
		_ = d.Ack(false)
	}
}

// truth: ok
func (w *Worker) OrderStatus(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var evt struct {
			OrderID string `json:"order_id"`
			Status  string `json:"status"`
		}
		if err := json.Unmarshal(d.Body, &evt); err != nil {
			_ = d.Reject(false)
			continue
		}
		if err := w.Q.SetOrderStatus(ctx, evt.Status, evt.OrderID); err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
}

// truth: ok
func (w *Worker) AddPointsDedupTx(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	q := w.Q.WithTx(tx)
	n, err := q.MarkProcessed(ctx, "add_points", d.MessageId)
	if err != nil {
		return d.Nack(false, true)
	}
	if n == 0 {
		return d.Ack(false) // seen before
	}
	if err := q.AddPoints(ctx, int32(evt.Amount/100), evt.UserID); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: bug IDEM006
func (w *Worker) AddPointsDedupOutsideTx(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	n, err := w.Q.MarkProcessed(ctx, "add_points", d.MessageId)
	if err != nil {
		return d.Nack(false, true)
	}
	if n == 0 {
		return d.Ack(false)
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	if err := w.Q.WithTx(tx).AddPoints(ctx, int32(evt.Amount/100), evt.UserID); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: bug IDEM004 IDEM001
func (w *Worker) AddPointsDedupIgnored(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	if _, err := w.Q.MarkProcessed(ctx, "add_points", d.MessageId); err != nil {
		return d.Nack(false, true)
	}
	if err := w.Q.AddPoints(ctx, int32(evt.Amount/100), evt.UserID); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: ok
func (w *Worker) RecordOrderUnique(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	_, err := w.Pool.Exec(ctx, `INSERT INTO order_events (order_id, amount) VALUES ($1, $2)`, evt.OrderID, evt.Amount)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return d.Ack(false) // already recorded
	}
	if err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: bug IDEM001
func (w *Worker) AddPointsViaRepo(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	if err := w.Points.AddPoints(ctx, evt.UserID, int(evt.Amount/100)); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// OrderService is the service layer the handlers call.
type OrderService struct {
	Q   *db.Queries
	SMS *sms.Client
}

func (s *OrderService) Complete(ctx context.Context, evt OrderPlaced) error {
	if err := s.Q.AddPoints(ctx, int32(evt.Amount/100), evt.UserID); err != nil {
		return err
	}
	return s.Q.BumpDailyStats(ctx, "2026-01-01", evt.Amount)
}

// truth: bug IDEM001
func (w *Worker) CompleteOrder(ctx context.Context, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	if err := w.Orders.Complete(ctx, evt); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// truth: ok
func (w *Worker) CompleteOrderGuarded(ctx context.Context, st guard.Store, d amqp.Delivery) error {
	var evt OrderPlaced
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	_, err := st.Run(ctx, "order_sms", evt.OrderID, d.Body, func(ctx context.Context, l *guard.Lease) error {
		return w.SMS.SendWithKey(ctx, evt.Phone, "Thanks for your order", l.Key())
	})
	if err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
