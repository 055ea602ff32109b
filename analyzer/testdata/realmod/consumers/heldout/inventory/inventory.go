// Package inventory holds the stock service's consumers (RabbitMQ and
// segmentio/kafka-go): reserve on order.created, release on order.cancelled.
package inventory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/idemkit/idem/guard"
	amqp "github.com/rabbitmq/amqp091-go"
	kafkago "github.com/segmentio/kafka-go"

	"example.com/realmod/consumers/heldout/platform"
)

// OrderEvent is published by the order service.
type OrderEvent struct {
	OrderID string     `json:"order_id"`
	Items   []LineItem `json:"items"`
}

// LineItem is one SKU of an order.
type LineItem struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// Consumer is wired by cmd/inventory-worker.
type Consumer struct {
	DB    *sql.DB
	Stock platform.StockRepo
	Store *guard.SQLStore
	Pub   *amqp.Channel
	Log   *slog.Logger
}

var errUnknownType = errors.New("unknown event type")

// HandleDelivery dispatches on the AMQP type property to the per-type handlers.
//
// truth: bug IDEM001
func (c *Consumer) HandleDelivery(ctx context.Context, d amqp.Delivery) error {
	var evt OrderEvent
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	var err error
	switch d.Type {
	case "order.created":
		err = c.reserve(ctx, evt)
	case "order.cancelled":
		err = c.release(ctx, evt)
	default:
		err = fmt.Errorf("%q: %w", d.Type, errUnknownType)
	}
	if errors.Is(err, errUnknownType) {
		c.Log.Warn("dropping event", "type", d.Type)
		return d.Reject(false)
	}
	if err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

func (c *Consumer) reserve(ctx context.Context, evt OrderEvent) error {
	for _, it := range evt.Items {
		if err := c.Stock.Deduct(ctx, it.SKU, it.Qty); err != nil {
			return err
		}
	}
	return nil
}

func (c *Consumer) release(ctx context.Context, evt OrderEvent) error {
	for _, it := range evt.Items {
		if err := c.Stock.Restock(ctx, it.SKU, it.Qty); err != nil {
			return err
		}
	}
	return nil
}

// ReserveOrder moves the order from pending to reserved and deducts stock in
// the same transaction; a redelivery finds the order already reserved.
//
// truth: ok
func (c *Consumer) ReserveOrder(ctx context.Context, d amqp.Delivery) error {
	var evt OrderEvent
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	tx, err := c.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'reserved' WHERE id = $1 AND status = 'pending'`, evt.OrderID)
	if err != nil {
		return d.Nack(false, true)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return d.Nack(false, true)
	}
	if n == 0 {
		c.Log.Info("order already reserved", "order", evt.OrderID)
		return d.Ack(false)
	}
	for _, it := range evt.Items {
		if _, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, it.Qty, it.SKU); err != nil {
			return d.Nack(false, true)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// ReserveOrderSplitTx flips the order status outside the transaction that
// deducts the stock: a crash in between leaves the order reserved and the
// stock untouched, and the redelivery skips it.
//
// truth: bug IDEM006
func (c *Consumer) ReserveOrderSplitTx(ctx context.Context, d amqp.Delivery) error {
	var evt OrderEvent
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	res, err := c.DB.ExecContext(ctx, `UPDATE orders SET status = 'reserved' WHERE id = $1 AND status = 'pending'`, evt.OrderID)
	if err != nil {
		return d.Nack(false, true)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return d.Ack(false)
	}
	tx, err := c.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	for _, it := range evt.Items {
		if _, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, it.Qty, it.SKU); err != nil {
			return d.Nack(false, true)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// ReserveAndAnnounce deducts through the guard, then publishes
// inventory.reserved (again on a redelivery: downstream dedups).
//
// truth: ok
func (c *Consumer) ReserveAndAnnounce(ctx context.Context, d amqp.Delivery) error {
	var evt OrderEvent
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		return d.Reject(false)
	}
	_, err := c.Store.Do(ctx, "deduct_inventory", evt.OrderID, d.Body, func(ctx context.Context, tx *sql.Tx) error {
		for _, it := range evt.Items {
			if _, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, it.Qty, it.SKU); err != nil {
				return err
			}
		}
		return nil
	})
	if guard.Permanent(err) {
		return d.Reject(false)
	}
	if err != nil {
		return d.Nack(false, true)
	}
	body, _ := json.Marshal(map[string]string{"order_id": evt.OrderID})
	if err := c.Pub.PublishWithContext(ctx, "inventory", "inventory.reserved", false, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		MessageId:    "reserved-" + evt.OrderID,
		Body:         body,
	}); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// RunReservations deducts each line item concurrently, waits for all of
// them, and commits the offset only when every item succeeded.
//
// truth: ok
func RunReservations(ctx context.Context, r *kafkago.Reader, st *guard.SQLStore) error {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		var evt OrderEvent
		if err := json.Unmarshal(m.Value, &evt); err != nil {
			if err := r.CommitMessages(ctx, m); err != nil {
				return err
			}
			continue
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		for _, it := range evt.Items {
			wg.Add(1)
			go func(it LineItem) {
				defer wg.Done()
				_, err := st.Do(ctx, "deduct_inventory", evt.OrderID+"/"+it.SKU, m.Value, func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, it.Qty, it.SKU)
					return err
				})
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}(it)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("order %s: %w", evt.OrderID, err)
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// RunReservationsPool hands messages to a pool of workers and commits the
// offset as soon as a worker has taken the message: a crash while the
// worker runs loses the reservation.
//
// truth: bug IDEM002
func RunReservationsPool(ctx context.Context, r *kafkago.Reader, st *guard.SQLStore, log *slog.Logger) error {
	jobs := make(chan kafkago.Message, 64)
	defer close(jobs)
	for i := 0; i < 8; i++ {
		go func() {
			for m := range jobs {
				var evt OrderEvent
				if err := json.Unmarshal(m.Value, &evt); err != nil {
					log.Error("bad order event", "offset", m.Offset, "err", err)
					continue
				}
				_, err := st.Do(ctx, "deduct_inventory", evt.OrderID, m.Value, func(ctx context.Context, tx *sql.Tx) error {
					for _, it := range evt.Items {
						if _, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, it.Qty, it.SKU); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					log.Error("reserve", "order", evt.OrderID, "err", err)
				}
			}
		}()
	}
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		jobs <- m
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// ReleaseOnCancel puts the stock back through the guard, but acknowledges
// in a defer: when the guard fails the message is acked anyway and the
// stock is never released.
//
// truth: bug IDEM003
func (c *Consumer) ReleaseOnCancel(ctx context.Context, d amqp.Delivery) {
	defer d.Ack(false)
	var evt OrderEvent
	if err := json.Unmarshal(d.Body, &evt); err != nil {
		c.Log.Warn("bad cancel event", "err", err)
		return
	}
	_, err := c.Store.Do(ctx, "release_inventory", evt.OrderID, d.Body, func(ctx context.Context, tx *sql.Tx) error {
		for _, it := range evt.Items {
			if _, err := tx.ExecContext(ctx, `UPDATE inventory SET available = available + $1 WHERE sku = $2`, it.Qty, it.SKU); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.Log.Error("release failed", "order", evt.OrderID, "err", err)
		return
	}
}
