// Package redislist: Redis lists as job queues (go-redis v9). A pop,
// blocking or polled (or a blocking move to a processing list), returns the
// next job; the non-blocking RPOPLPUSH/LMOVE stay effects of their own. A
// pop removes the job as it returns it: the list forgets it before the
// worker's effect (IDEM007); a blocking move keeps it in a processing list
// until the worker removes it.
package redislist

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"

	"shop"
)

func worker(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		kv, err := rdb.BRPop(ctx, time.Second, "jobs").Result() // want `auto-ack consumer redis.Client.BRPop \(the pop removes the job from the list\) acks each message before handler worker performs shop.AddPoints`
		if err != nil {
			continue
		}
		o, _ := shop.Decode([]byte(kv[1]))
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `effect shop.AddPoints .* in handler worker is not guarded by a dedup check`
	}
}

// pollWorker pops with the non-blocking RPOP until the list is empty,
// then waits: the popped job is the message.
func pollWorker(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		raw, err := rdb.RPop(ctx, "jobs").Result() // want `auto-ack consumer redis.Client.RPop .* before handler pollWorker`
		if err != nil || raw == "" {
			time.Sleep(time.Second)
			continue
		}
		o, _ := shop.Decode([]byte(raw))
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `effect shop.AddPoints .* in handler pollWorker is not guarded by a dedup check`
	}
}

func leftWorker(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		kv, err := rdb.BLPop(ctx, 0, "jobs").Result() // want `auto-ack consumer redis.Client.BLPop .* performs shop.SendSMS`
		if err != nil {
			return err
		}
		o, _ := shop.Decode([]byte(kv[1]))
		if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
			rdb.RPush(ctx, "jobs", kv[1]) // want `IDEM001`
		}
	}
}

func batchWorker(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		_, jobs, err := rdb.BLMPop(ctx, time.Second, "left", 10, "jobs").Result() // want `auto-ack consumer redis.Client.BLMPop .* performs redislist.handle \(a write\): a crash loses the message \(IDEM007\)`
		if err != nil {
			continue
		}
		for _, j := range jobs {
			if err := handle(ctx, db, j); err != nil {
				continue
			}
		}
	}
}

func handle(ctx context.Context, db *sql.DB, job string) error {
	o, err := shop.Decode([]byte(job))
	if err != nil {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "stock", o.ID)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}
