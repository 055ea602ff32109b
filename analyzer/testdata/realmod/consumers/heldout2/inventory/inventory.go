// Package inventory holds the warehouse service's RabbitMQ consumers: stock
// reservations, releases and cart clean-up for the deduct_inventory scenario.
package inventory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"time"

	"github.com/idemkit/idem/guard"
	amqp "github.com/rabbitmq/amqp091-go"
)

// OrderPlaced is the event the order service publishes.
type OrderPlaced struct {
	EventID string `json:"event_id"`
	OrderID string `json:"order_id"`
	SKU     string `json:"sku"`
	Qty     int    `json:"qty"`
}

func decode(d amqp.Delivery) (OrderPlaced, error) {
	var ev OrderPlaced
	err := json.Unmarshal(d.Body, &ev)
	return ev, err
}

// StockWorker consumes "order.placed" and reserves stock.
type StockWorker struct {
	DB    *sql.DB
	Ch    *amqp.Channel
	Store *guard.SQLStore
	Queue string
}

// Run is the classic inbox consumer: the inbox row and the stock update are
// written in one database transaction, the inbox insert's rows-affected
// decides whether the update runs, and the delivery is acked after commit.
//
// truth: ok
func (w *StockWorker) Run(ctx context.Context) error {
	deliveries, err := w.Ch.Consume(w.Queue, "stock-worker", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		ev, err := decode(d)
		if err != nil {
			_ = d.Reject(false)
			continue
		}
		tx, err := w.DB.BeginTx(ctx, nil)
		if err != nil {
			_ = d.Nack(false, true)
			continue
		}
		res, err := tx.ExecContext(ctx,
			`INSERT INTO inbox (consumer, message_id) VALUES ('stock-worker', $1) ON CONFLICT DO NOTHING`, ev.EventID)
		if err != nil {
			_ = tx.Rollback()
			_ = d.Nack(false, true)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_ = tx.Rollback()
			_ = d.Ack(false)
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU); err != nil {
			_ = tx.Rollback()
			_ = d.Nack(false, true)
			continue
		}
		if err := tx.Commit(); err != nil {
			_ = d.Nack(false, true)
			continue
		}
		_ = d.Ack(false)
	}
	return nil
}

// HandleReservation deducts stock for one delivery with no dedup at all: a
// redelivery after a crash between the UPDATE and the ack deducts twice.
//
// truth: bug IDEM001
func (w *StockWorker) HandleReservation(ctx context.Context, d amqp.Delivery) {
	ev, err := decode(d)
	if err != nil {
		_ = d.Reject(false)
		return
	}
	if _, err := w.DB.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU); err != nil {
		log.Printf("deduct %s: %v", ev.SKU, err)
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// ConsumeFast is the "throughput" consumer someone switched to autoAck=true.
// The broker forgets each message on delivery, so a crash loses the
// reservation, and the unguarded accumulating UPDATE double-applies on
// producer resends.
//
// truth: bug IDEM001 IDEM007
func (w *StockWorker) ConsumeFast(ctx context.Context) error {
	msgs, err := w.Ch.Consume(w.Queue, "stock-fast", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		ev, err := decode(d)
		if err != nil {
			continue
		}
		if _, err := w.DB.ExecContext(ctx, `UPDATE stock SET reserved = reserved + $1 WHERE sku = $2`, ev.Qty, ev.SKU); err != nil {
			log.Printf("reserve: %v", err)
		}
	}
	return nil
}

// ConsumeGuardedAutoAck guards the deduction with guard.Do, but the queue is
// consumed with autoAck=true: a crash after delivery loses the deduction
// (nothing redelivers it). Duplicates are handled, loss is not.
//
// truth: bug IDEM007
func (w *StockWorker) ConsumeGuardedAutoAck(ctx context.Context) error {
	msgs, err := w.Ch.Consume(w.Queue, "stock-auto", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		ev, err := decode(d)
		if err != nil {
			continue
		}
		_, err = w.Store.Do(ctx, "deduct_inventory", ev.EventID, nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU)
			return err
		})
		if err != nil {
			log.Printf("deduct: %v", err)
		}
	}
	return nil
}

// HandleRelease acks first "so the queue does not back up", then runs the
// guarded restock. A crash after the ack loses the restock for good.
//
// truth: bug IDEM002
func (w *StockWorker) HandleRelease(ctx context.Context, d amqp.Delivery) {
	_ = d.Ack(false)
	ev, err := decode(d)
	if err != nil {
		return
	}
	_, err = w.Store.Do(ctx, "release_inventory", ev.EventID, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty + $1 WHERE sku = $2`, ev.Qty, ev.SKU)
		return err
	})
	if err != nil {
		log.Printf("release %s: %v", ev.OrderID, err)
	}
}

// HandleAdjust guards the adjustment correctly but acks on every error,
// transient ones included (DB down), so the adjustment is silently dropped.
//
// truth: bug IDEM003
func (w *StockWorker) HandleAdjust(ctx context.Context, d amqp.Delivery) {
	ev, err := decode(d)
	if err != nil {
		_ = d.Reject(false)
		return
	}
	out, err := w.Store.Do(ctx, "adjust_inventory", ev.EventID, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU)
		return err
	})
	if err != nil {
		log.Printf("adjust %s failed, dropping: %v", ev.SKU, err)
		_ = d.Ack(false)
		return
	}
	log.Printf("adjust %s: %s", ev.SKU, out)
	_ = d.Ack(false)
}

// HandleCorrection defers the ack right after decoding, so the deferred ack
// also runs when the guarded update fails: the error is swallowed and the
// message is gone.
//
// truth: bug IDEM003
func (w *StockWorker) HandleCorrection(ctx context.Context, d amqp.Delivery) error {
	ev, err := decode(d)
	if err != nil {
		return d.Reject(false)
	}
	defer d.Ack(false)
	_, err = w.Store.Do(ctx, "correct_inventory", ev.EventID, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU)
		return err
	})
	return err
}

// HandleCartCleared deletes the cart rows of a placed order: DELETE is
// naturally idempotent, so running it twice leaves the same state.
//
// truth: ok
func (w *StockWorker) HandleCartCleared(ctx context.Context, d amqp.Delivery) {
	ev, err := decode(d)
	if err != nil {
		_ = d.Reject(false)
		return
	}
	if _, err := w.DB.ExecContext(ctx, `DELETE FROM cart_items WHERE order_id = $1`, ev.OrderID); err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

// HandleWithRetry retries the deduction with exponential backoff before
// giving up. The retry loop makes it worse, not better: a timeout whose
// UPDATE actually committed is retried and deducts again, and nothing
// dedups a broker redelivery either.
//
// truth: bug IDEM001
func (w *StockWorker) HandleWithRetry(ctx context.Context, d amqp.Delivery) {
	ev, err := decode(d)
	if err != nil {
		_ = d.Reject(false)
		return
	}
	backoff := 100 * time.Millisecond
	for attempt := 0; attempt < 4; attempt++ {
		err = w.deduct(ctx, ev.SKU, ev.Qty)
		if err == nil {
			break
		}
		time.Sleep(backoff)
		backoff *= 2
	}
	if err != nil {
		_ = d.Nack(false, true)
		return
	}
	_ = d.Ack(false)
}

func (w *StockWorker) deduct(ctx context.Context, sku string, qty int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := w.DB.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, qty, sku)
	return err
}

// HandlePermanentAware guards the deduction and only acks on success or on a
// duplicate; permanent errors are rejected (dead-lettered) and everything
// else is requeued.
//
// truth: ok
func (w *StockWorker) HandlePermanentAware(ctx context.Context, d amqp.Delivery) {
	ev, err := decode(d)
	if err != nil {
		_ = d.Reject(false)
		return
	}
	_, err = w.Store.Do(ctx, "deduct_inventory", ev.OrderID+":"+ev.SKU, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2 AND qty >= $1`, ev.Qty, ev.SKU)
		return err
	})
	var inProgress *guard.InProgressError
	switch {
	case err == nil:
		_ = d.Ack(false)
	case errors.As(err, &inProgress):
		time.Sleep(inProgress.RetryAfter)
		_ = d.Nack(false, true)
	case guard.Permanent(err):
		_ = d.Reject(false)
	default:
		_ = d.Nack(false, true)
	}
}
