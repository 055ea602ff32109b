// Package river is a stub of github.com/riverqueue/river@v0.51.2 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package river

import (
	"context"
	"time"

	"github.com/riverqueue/river/rivertype"
)

type JobArgs interface {
	Kind() string
}

type Job[T JobArgs] struct {
	*rivertype.JobRow

	Args T
}

type Worker[T JobArgs] interface {
	Middleware(job *rivertype.JobRow) []rivertype.WorkerMiddleware

	NextRetry(job *Job[T]) time.Time

	Timeout(job *Job[T]) time.Duration

	Work(ctx context.Context, job *Job[T]) error
}

type WorkerDefaults[T JobArgs] struct{}

func (w WorkerDefaults[T]) Middleware(*rivertype.JobRow) []rivertype.WorkerMiddleware { return nil }

func (w WorkerDefaults[T]) NextRetry(*Job[T]) time.Time { return time.Time{} }

func (w WorkerDefaults[T]) Timeout(*Job[T]) time.Duration { return 0 }

type Workers struct {
}

func NewWorkers() *Workers { return nil }

func AddWorker[T JobArgs](workers *Workers, worker Worker[T]) {}

func AddWorkerSafely[T JobArgs](workers *Workers, worker Worker[T]) error { return nil }

func WorkFunc[T JobArgs](f func(context.Context, *Job[T]) error) Worker[T] { return nil }

// JobCompleteTx completes job in tx. The real TDriver is constrained by
// riverdriver.Driver[TTx]; the stub leaves it unconstrained.
func JobCompleteTx[TDriver any, TTx any, TArgs JobArgs](ctx context.Context, tx TTx, job *Job[TArgs]) (*Job[TArgs], error) {
	return job, nil
}

// Client is a River client, generic over the driver's transaction.
type Client[TTx any] struct{}

// InsertOpts are the options of an insert (a subset).
type InsertOpts struct {
	MaxAttempts int
	Metadata    []byte
	Priority    int
	Queue       string
	ScheduledAt time.Time
	Tags        []string
}

// InsertManyParams is one job of a batch insert.
type InsertManyParams struct {
	Args       JobArgs
	InsertOpts *InsertOpts
}

func (c *Client[TTx]) Insert(ctx context.Context, args JobArgs, opts *InsertOpts) (*rivertype.JobInsertResult, error) {
	return nil, nil
}

func (c *Client[TTx]) InsertTx(ctx context.Context, tx TTx, args JobArgs, opts *InsertOpts) (*rivertype.JobInsertResult, error) {
	return nil, nil
}

func (c *Client[TTx]) InsertMany(ctx context.Context, params []InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	return nil, nil
}

func (c *Client[TTx]) InsertManyTx(ctx context.Context, tx TTx, params []InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	return nil, nil
}

func (c *Client[TTx]) InsertManyFast(ctx context.Context, params []InsertManyParams) (int, error) {
	return 0, nil
}

func (c *Client[TTx]) InsertManyFastTx(ctx context.Context, tx TTx, params []InsertManyParams) (int, error) {
	return 0, nil
}

func ClientFromContext[TTx any](ctx context.Context) *Client[TTx] { return nil }

func ClientFromContextSafely[TTx any](ctx context.Context) (*Client[TTx], error) { return nil, nil }
