// Package queue is a program's own queue layer over Redis lists: a
// producer's LPUSH and a consumer's BRPOPLPUSH. Its pushes publish a job.
package queue

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"
)

// Job is a unit of work.
type Job struct {
	ID string `json:"id"`
}

// Producer pushes jobs.
type Producer struct{ Client *redis.Client }

// Publish pushes a job for the next stage's workers.
func (p *Producer) Publish(ctx context.Context, queue string, j Job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return p.Client.LPush(ctx, queue, b).Err()
}

// Consumer takes jobs into a processing list.
type Consumer struct{ Client *redis.Client }

// Next moves the next job to the processing list and returns it.
func (c *Consumer) Next(ctx context.Context, queue string) (Job, error) {
	var j Job
	res, err := c.Client.BRPopLPush(ctx, queue, queue+":processing", 0).Result()
	if err != nil {
		return j, err
	}
	err = json.Unmarshal([]byte(res), &j)
	return j, err
}
