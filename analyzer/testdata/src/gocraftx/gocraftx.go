// Package gocraftx: gocraft/work jobs (retried when the job function
// returns an error, done when it returns nil).
package gocraftx

import (
	"context"
	"database/sql"
	"log"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"shop"
)

type Context struct{ db *sql.DB }

func (c *Context) AddPoints(job *work.Job) error {
	user := job.ArgString("user")
	if err := job.ArgError(); err != nil {
		return err
	}
	return shop.AddPoints(context.Background(), c.db, user, int(job.ArgInt64("n"))) // want `effect shop.AddPoints .* in handler Context.AddPoints is not guarded by a dedup check`
}

func (c *Context) SetPhone(job *work.Job) error {
	return shop.SetPhone(context.Background(), c.db, job.ArgString("user"), job.ArgString("phone"))
}

func (c *Context) BumpStats(job *work.Job) error {
	if err := shop.BumpStats(context.Background(), c.db, job.ArgString("day"), int(job.ArgInt64("gmv"))); err != nil { // want `IDEM001`
		log.Printf("stats: %v", err)
	}
	return nil // want `handler Context.BumpStats returns nil when shop.BumpStats fails, and its dispatcher acks on that`
}

func run(pool *redis.Pool) {
	wp := work.NewWorkerPool(Context{}, 4, "shop", pool)
	wp.Job("add_points", (*Context).AddPoints)
	wp.Job("set_phone", (*Context).SetPhone)
	wp.JobWithOptions("bump_stats", work.JobOptions{MaxFails: 3}, (*Context).BumpStats)
	wp.Start()
}
