package riverx

import (
	"context"
	"database/sql"

	"github.com/riverqueue/river"

	"shop"
)

// sqlDriver stands for River's database/sql driver.
type sqlDriver struct{}

// CompletedWorker completes its job in the transaction of its writes: a
// retry finds the stock deducted only if the job is done.
type CompletedWorker struct {
	river.WorkerDefaults[OrderArgs]
	DB *sql.DB
}

func (w *CompletedWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	o := job.Args.Order
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, o.Qty, o.User); err != nil {
		return err
	}
	if _, err := river.JobCompleteTx[*sqlDriver](ctx, tx, job); err != nil {
		return err
	}
	return tx.Commit()
}

// PooledCompletedWorker completes its job in a transaction, but adds the
// points on the pool: they commit on their own, before the completion.
type PooledCompletedWorker struct {
	river.WorkerDefaults[OrderArgs]
	DB *sql.DB
}

func (w *PooledCompletedWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	o := job.Args.Order
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	if err := shop.AddPoints(ctx, w.DB, o.User, o.Qty); err != nil { // want `IDEM001`
		return err
	}
	if _, err := river.JobCompleteTx[*sqlDriver](ctx, tx, job); err != nil {
		return err
	}
	return tx.Commit()
}

// SometimesCompletedWorker completes the job in the transaction only for
// orders with a SKU: the others commit the deduction with no completion.
type SometimesCompletedWorker struct {
	river.WorkerDefaults[OrderArgs]
	DB *sql.DB
}

func (w *SometimesCompletedWorker) Work(ctx context.Context, job *river.Job[OrderArgs]) error {
	o := job.Args.Order
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil { // want `IDEM001`
		return err
	}
	if o.SKU != "" {
		if _, err := river.JobCompleteTx[*sqlDriver](ctx, tx, job); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func registerCompleted(db *sql.DB, workers *river.Workers) {
	river.AddWorker(workers, &CompletedWorker{DB: db})
	river.AddWorker(workers, &PooledCompletedWorker{DB: db})
	river.AddWorker(workers, &SometimesCompletedWorker{DB: db})
}
