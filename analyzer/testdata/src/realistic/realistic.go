package realistic // want package:"idemfacts"

// Package realistic: consumers written the way services write them —
// worker pools, dispatchers, retries, fan-out, dedup done by the loop.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/idemkit/idem/guard"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"

	"shop"
)

type Worker struct {
	db    *sql.DB
	rdb   *redis.Client
	store *guard.SQLStore
	n     int
}

// Run starts a pool of loops over the deliveries.
func (w *Worker) Run(ctx context.Context, msgs <-chan amqp.Delivery) {
	var wg sync.WaitGroup
	for i := 0; i < w.n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx, msgs)
		}()
	}
	wg.Wait()
}

// loop dedups with SET NX, then dispatches.
func (w *Worker) loop(ctx context.Context, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		ok, err := w.rdb.SetNX(ctx, "seen:"+d.MessageId, 1, 24*time.Hour).Result()
		if err != nil {
			d.Nack(false, true)
			continue
		}
		if !ok {
			d.Ack(false)
			continue
		}
		if err := w.dispatch(ctx, d); err != nil {
			w.rdb.Del(ctx, "seen:"+d.MessageId)
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}

// dispatch is called only by loop: its effects are judged there.
func (w *Worker) dispatch(ctx context.Context, d amqp.Delivery) error { // want dispatch:`effects\(realistic.Worker.onOrder → shop.AddPoints → shop.DBTX.ExecContext .*\)`
	switch d.Type {
	case "order.created":
		return w.onOrder(ctx, d.Body)
	case "user.renamed":
		return w.onRename(ctx, d.Body)
	}
	return fmt.Errorf("unknown type %q", d.Type)
}

func (w *Worker) onOrder(ctx context.Context, body []byte) error { // want onOrder:`effects\(shop.AddPoints → shop.DBTX.ExecContext .*\)`
	o, err := shop.Decode(body)
	if err != nil {
		return err
	}
	return shop.AddPoints(ctx, w.db, o.User, o.Qty)
}

func (w *Worker) onRename(ctx context.Context, body []byte) error {
	var v struct{ User, Name string }
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	_, err := w.db.ExecContext(ctx, `UPDATE users SET name = $1 WHERE id = $2`, v.Name, v.User)
	return err
}

// retry retries fn with a backoff.
func retry(ctx context.Context, n int, fn func() error) error {
	var err error
	for i := 0; i < n; i++ {
		if err = fn(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i) * 100 * time.Millisecond):
		}
	}
	return err
}

// Retries around a guarded effect.
func (w *Worker) withRetry(ctx context.Context, d amqp.Delivery) {
	o, err := shop.Decode(d.Body)
	if err != nil {
		d.Reject(false)
		return
	}
	err = retry(ctx, 3, func() error {
		_, err := w.store.Do(ctx, "add_points", o.ID, nil, func(ctx context.Context, tx *sql.Tx) error {
			return shop.AddPoints(ctx, tx, o.User, o.Qty)
		})
		return err
	})
	if err != nil {
		if guard.Permanent(err) {
			d.Reject(false)
			return
		}
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Retries around an unguarded effect.
func (w *Worker) retryNaive(ctx context.Context, d amqp.Delivery) {
	o, _ := shop.Decode(d.Body)
	err := retry(ctx, 3, func() error { // want `effect func literal → shop.AddPoints → .* in handler Worker.retryNaive`
		return shop.AddPoints(ctx, w.db, o.User, o.Qty)
	})
	if err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Fan-out over the items of one message, waited for before the ack.
func (w *Worker) fanOut(ctx context.Context, d amqp.Delivery) {
	var items []shop.Order
	if err := json.Unmarshal(d.Body, &items); err != nil {
		d.Reject(false)
		return
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(items))
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.store.Do(ctx, "deduct_inventory", d.MessageId+"/"+it.SKU, nil, func(ctx context.Context, tx *sql.Tx) error {
				return shop.DeductStock(ctx, tx, it.SKU, it.Qty)
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

var errPermanent = errors.New("permanent")

// Errors classified: permanent ones are dead-lettered by acking after a
// record in a table of failures.
func (w *Worker) classify(ctx context.Context, d amqp.Delivery) {
	_, err := w.store.Do(ctx, "add_points", d.MessageId, nil, func(ctx context.Context, tx *sql.Tx) error {
		return shop.AddPoints(ctx, tx, d.UserId, 1)
	})
	switch {
	case err == nil:
		d.Ack(false)
	case errors.Is(err, errPermanent), guard.Permanent(err):
		log.Printf("dead-letter %s: %v", d.MessageId, err)
		d.Reject(false)
	default:
		d.Nack(false, true)
	}
}
