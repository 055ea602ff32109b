package redislist // want package:"idemfacts"

// A reliable queue: BRPOPLPUSH (or BLMOVE) takes the next job into a
// processing list, and the worker LREMs it there when done. The handlers
// are registered into a slice and called in turn.

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"

	"shop"
)

type jobHandler func(ctx context.Context, job shop.Order) error

type reliable struct {
	rdb      *redis.Client
	handlers []jobHandler
}

func (r *reliable) register(h jobHandler) { r.handlers = append(r.handlers, h) }

func (r *reliable) consume(ctx context.Context) {
	for {
		raw, err := r.rdb.BRPopLPush(ctx, "jobs", "jobs:processing", 2*time.Second).Bytes()
		if err != nil {
			continue
		}
		o, err := shop.Decode(raw)
		if err != nil {
			r.rdb.LRem(ctx, "jobs:processing", 1, raw)
			continue
		}
		r.process(ctx, raw, o) // want `IDEM001`
	}
}

func (r *reliable) process(ctx context.Context, raw []byte, o shop.Order) { // want process:`effects\(redis.Client.LPush\)`
	for _, h := range r.handlers {
		if err := h(ctx, o); err != nil {
			r.rdb.LPush(ctx, "jobs", raw)
		}
	}
	r.rdb.LRem(ctx, "jobs:processing", 1, raw)
}

type notifier struct{ db *sql.DB }

func (n *notifier) handle(ctx context.Context, o shop.Order) error { // want handle:`effects\(shop.SendSMS → smsdk.Client.Send → http.Client.Do POST\)`
	return shop.SendSMS(ctx, o.Phone, "shipped")
}

func wire(ctx context.Context, rdb *redis.Client, db *sql.DB) { // want wire:`effects\(func literal → redislist.notifier.handle → shop.SendSMS → smsdk.Client.Send → http.Client.Do POST\)`
	r := &reliable{rdb: rdb}
	r.register((&notifier{db: db}).handle)
	go r.consume(ctx)
}

// moved takes jobs with BLMOVE.
func moved(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	for {
		raw, err := rdb.BLMove(ctx, "orders", "orders:processing", "RIGHT", "LEFT", time.Second).Result()
		if err != nil {
			continue
		}
		o, _ := shop.Decode([]byte(raw))
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
		rdb.LRem(ctx, "orders:processing", 1, raw)
	}
}

// dequeue wraps the blocking move and returns the job's payload: a fetch
// for the loop that calls it.
func (r *reliable) dequeue(ctx context.Context, queue string) ([]byte, error) {
	raw, err := r.rdb.BRPopLPush(ctx, queue, queue+":processing", 2*time.Second).Bytes()
	if err == redis.Nil {
		return nil, nil
	}
	return raw, err
}

func (r *reliable) consumeWrapped(ctx context.Context, queue string) {
	for {
		raw, err := r.dequeue(ctx, queue)
		if err != nil || raw == nil {
			continue
		}
		o, err := shop.Decode(raw)
		if err != nil {
			continue
		}
		r.process(ctx, raw, o) // want `IDEM001`
	}
}
