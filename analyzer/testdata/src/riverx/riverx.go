// Package riverx: River workers. Work(ctx, *river.Job[T]) returning nil
// completes the job; an error retries it.
package riverx

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/riverqueue/river"

	"shop"
)

type OrderArgs struct {
	Order shop.Order `json:"order"`
}

func (OrderArgs) Kind() string { return "order" }

type PointsWorker struct {
	river.WorkerDefaults[OrderArgs]
	DB *sql.DB
}

func (w *PointsWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	o := job.Args.Order
	if err := shop.AddPoints(ctx, w.DB, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler PointsWorker.Work is not guarded by a dedup check`
		return err
	}
	return shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
}

type StockWorker struct {
	river.WorkerDefaults[OrderArgs]
	DB *sql.DB
}

func (w *StockWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	o := job.Args.Order
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "stock", fmt.Sprint(job.ID))
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

// attemptKey dedups on the attempt number: every retry is new to it.
func attemptKey(ctx context.Context, rdb *redis.Client, job *river.Job[OrderArgs]) error {
	ok, err := rdb.SetNX(ctx, fmt.Sprintf("sms:%d:%d", job.ID, job.Attempt), 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return shop.SendSMS(ctx, job.Args.Order.Phone, "hi") // want `its key is built from rivertype.JobRow.Attempt, which differs on every delivery`
}

func register(db *sql.DB) *river.Workers {
	workers := river.NewWorkers()
	river.AddWorker(workers, &PointsWorker{DB: db})
	river.AddWorker(workers, &StockWorker{DB: db})
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[OrderArgs]) error {
		o := job.Args.Order
		if err := shop.BumpStats(ctx, db, o.Day, o.GMV); err != nil { // want `IDEM001`
			log.Print(err)
			return nil // want `returns nil when shop.BumpStats fails, and its dispatcher acks on that`
		}
		return nil
	}))
	return workers
}

// FollowUpWorker enqueues the receipt job and logs a failed insert before
// completing: the follow-up is lost.
type FollowUpWorker struct {
	river.WorkerDefaults[OrderArgs]
}

func (w *FollowUpWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	client := river.ClientFromContext[*sql.Tx](ctx)
	if _, err := client.Insert(ctx, OrderArgs{Order: job.Args.Order}, &river.InsertOpts{Queue: "receipts"}); err != nil {
		log.Printf("enqueue: %v", err)
	}
	return nil // want `handler FollowUpWorker.Work returns success when river.Client.Insert fails`
}
