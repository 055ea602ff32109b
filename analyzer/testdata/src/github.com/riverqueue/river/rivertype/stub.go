// Package rivertype is a stub of github.com/riverqueue/river/rivertype@v0.51.2 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package rivertype

import (
	"context"
	"time"
)

type JobState string

type JobRow struct {
	ID          int64
	Attempt     int
	AttemptedAt *time.Time
	CreatedAt   time.Time
	EncodedArgs []byte
	Kind        string
	MaxAttempts int
	Metadata    []byte
	Priority    int
	Queue       string
	ScheduledAt time.Time
	State       JobState
	Tags        []string
}

type Middleware interface {
	IsMiddleware() bool
}

type WorkerMiddleware interface {
	Middleware

	Work(ctx context.Context, job *JobRow, doInner func(context.Context) error) error
}

// JobInsertResult is the result of a job insert.
type JobInsertResult struct {
	Job                      *JobRow
	UniqueSkippedAsDuplicate bool
}
