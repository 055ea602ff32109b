// Package listqueue (whole-program mode): stages of a pipeline linked by
// the program's own queue over Redis lists. Handing a job to the next
// stage publishes it; a counter the stage increments is an effect.
package listqueue

import (
	"context"

	"github.com/redis/go-redis/v9"

	"listqueue/queue"
)

// Stage unpacks a job and hands it on.
type Stage struct {
	next *queue.Producer
	rdb  *redis.Client
}

// Unpack hands the job to the next stage: publish-only.
//
//idem:handler
func (s *Stage) Unpack(ctx context.Context, j queue.Job) error {
	return s.next.Publish(ctx, "ocr", j)
}

// Count counts the job and hands it on: the count repeats.
//
//idem:handler
func (s *Stage) Count(ctx context.Context, j queue.Job) error {
	if err := s.rdb.Incr(ctx, "jobs:"+j.ID).Err(); err != nil { // want `effect redis.Client.Incr in handler Stage.Count is not guarded by a dedup check`
		return err
	}
	return s.next.Publish(ctx, "ocr", j)
}

// Log appends the job to a log list no stage pops: a write.
//
//idem:handler
func (s *Stage) Log(ctx context.Context, j queue.Job) error {
	return s.rdb.LPush(ctx, "log", j.ID).Err() // want `effect redis.Client.LPush in handler Stage.Log is not guarded by a dedup check`
}
