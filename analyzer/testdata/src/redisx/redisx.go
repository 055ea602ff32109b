// Package redisx: Redis Streams consumers (go-redis v9) and the Redis dedup
// patterns: SET NX as a dedup, as a lock, ignored.
package redisx

import (
	"context"
	"database/sql"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"shop"
)

func orderOf(m redis.XMessage) shop.Order {
	o := shop.Order{ID: m.ID}
	if u, ok := m.Values["user"].(string); ok {
		o.User = u
	}
	return o
}

// --- naive stream consumers --------------------------------------------------------

func naiveLoop(ctx context.Context, rdb *redis.Client, db *sql.DB) error {
	for {
		streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"orders", ">"}}).Result()
		if err != nil {
			return err
		}
		for _, st := range streams {
			for _, m := range st.Messages {
				o := orderOf(m)
				shop.DeductStock(ctx, db, o.SKU, o.Qty)         // want `IDEM001`
				rdb.IncrBy(ctx, "points:"+o.User, int64(o.Qty)) // want `effect redis.Client.IncrBy in handler naiveLoop`
				shop.SendSMS(ctx, o.Phone, "hi")                // want `IDEM001`
				rdb.HIncrBy(ctx, "stats:"+o.Day, "orders", 1)   // want `IDEM001`
				rdb.Set(ctx, "last:"+o.User, o.ID, 0)           // idempotent
				rdb.SAdd(ctx, "buyers:"+o.Day, o.User)          // idempotent
				rdb.XAck(ctx, "orders", "g", m.ID)              // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
			}
		}
	}
}

// --- SET NX decides: a dedup ------------------------------------------------------------

func setNXDedup(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	ok, err := rdb.SetNX(ctx, "seen:"+m.ID, 1, 24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !ok {
		return rdb.XAck(ctx, "orders", "g", m.ID).Err()
	}
	if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil {
		rdb.Del(ctx, "seen:"+m.ID) // release on failure: still a dedup
		return err
	}
	return rdb.XAck(ctx, "orders", "g", m.ID).Err()
}

func setNXVal(ctx context.Context, rdb *redis.Client, db *sql.DB, m redis.XMessage) {
	o := orderOf(m)
	if rdb.SetNX(ctx, "seen:"+m.ID, 1, time.Hour).Val() {
		shop.SendSMS(ctx, o.Phone, "hi")
	}
	rdb.XAck(ctx, "orders", "g", m.ID) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

func setArgsNX(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	err := rdb.SetArgs(ctx, "seen:"+m.ID, 1, redis.SetArgs{Mode: "NX", TTL: time.Hour}).Err()
	if err == redis.Nil {
		return nil // duplicate
	}
	if err != nil {
		return err
	}
	return shop.SendSMS(ctx, o.Phone, "hi")
}

// SET NX then INCRBY on the same Redis: two commands, two transactions.
func setNXThenIncr(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	ok, err := rdb.SetNX(ctx, "seen:"+m.ID, 1, time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return rdb.IncrBy(ctx, "points:"+o.User, int64(o.Qty)).Err() // want `dedup record redis.Client.SetNX and effect redis.Client.IncrBy in handler setNXThenIncr are in different transactions.*\(IDEM006\)`
}

// --- decoys -----------------------------------------------------------------------------------

// The result is ignored.
func setNXIgnored(ctx context.Context, rdb *redis.Client, m redis.XMessage) {
	o := orderOf(m)
	rdb.SetNX(ctx, "seen:"+m.ID, 1, time.Hour) // want `result of dedup check redis.Client.SetNX in handler setNXIgnored never decides a branch; shop.SendSMS → .* runs for duplicates too \(IDEM004\)`
	shop.SendSMS(ctx, o.Phone, "hi")
}

// A lock: the key is deleted when the work is done.
func setNXLock(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	ok, err := rdb.SetNX(ctx, "lock:"+o.User, 1, 10*time.Second).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	defer rdb.Del(ctx, "lock:"+o.User)
	return rdb.IncrBy(ctx, "points:"+o.User, int64(o.Qty)).Err() // want `effect redis.Client.IncrBy in handler setNXLock is not guarded by a dedup check: the check redis.Client.SetNX guards nothing, it is a lock`
}

// A lookup then a write of the key: accepted (IDEM005 with -strict).
func existsThenSet(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	n, err := rdb.Exists(ctx, "seen:"+m.ID).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil {
		return err
	}
	return rdb.Set(ctx, "seen:"+m.ID, 1, time.Hour).Err()
}

// A nil check that is no dedup: reading the user's phone.
func getDecoy(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	phone, err := rdb.Get(ctx, "phone:"+m.ID).Result()
	if err == redis.Nil {
		return nil
	}
	if err != nil {
		return err
	}
	return shop.SendSMS(ctx, phone, "hi") // want `IDEM001`
}

// Through an adapter that guards its callback (a fact of shop.Once).
func viaOnce(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	return shop.Once(ctx, rdb, m.ID, func(ctx context.Context) error {
		return shop.SendSMS(ctx, o.Phone, "hi")
	})
}

// Through a helper returning a dedup error (a fact of shop.MarkSeen).
func viaMarkSeen(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	if err := shop.MarkSeen(ctx, rdb, m.ID); err != nil {
		return nil
	}
	return shop.SendSMS(ctx, o.Phone, "hi")
}

// Ignoring the helper's answer.
func markSeenIgnored(ctx context.Context, rdb *redis.Client, m redis.XMessage) error {
	o := orderOf(m)
	shop.MarkSeen(ctx, rdb, m.ID) // want `IDEM004`
	return shop.SendSMS(ctx, o.Phone, "hi")
}

// Ack before the effect.
func ackFirst(ctx context.Context, rdb *redis.Client, m redis.XMessage) {
	o := orderOf(m)
	rdb.XAck(ctx, "orders", "g", m.ID) // want `IDEM002`
	rdb.LPush(ctx, "outbox", o.ID)     // want `IDEM001`
}

// --- a cache kept beside the handler ---------------------------------------------

// dropFromCache removes the order from the user's cached list and logs a
// failure: it reports nothing to its caller.
func dropFromCache(ctx context.Context, rdb *redis.Client, o shop.Order) {
	if err := rdb.ZRem(ctx, "orders:"+o.User, o.ID).Err(); err != nil {
		log.Printf("cache: %v", err)
	}
}

// cacheLoop acks after the cache updates whatever happened: a failed
// write leaves the cache stale and the message acked.
func cacheLoop(ctx context.Context, rdb *redis.Client) error {
	for {
		streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"orders", ">"}}).Result()
		if err != nil {
			return err
		}
		for _, st := range streams {
			for _, m := range st.Messages {
				o := orderOf(m)
				dropFromCache(ctx, rdb, o)
				if err := rdb.XAck(ctx, "orders", "g", m.ID).Err(); err != nil { // want `ack redis.Client.XAck in handler cacheLoop also runs when redis.IntCmd.Err \(inside redisx.dropFromCache, which reports success\) fails.*\(IDEM003\)`
					return err
				}
			}
		}
	}
}

// setLoop logs a failed cache write and acks.
func setLoop(ctx context.Context, rdb *redis.Client) error {
	for {
		streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"orders", ">"}}).Result()
		if err != nil {
			return err
		}
		for _, st := range streams {
			for _, m := range st.Messages {
				o := orderOf(m)
				if err := rdb.Set(ctx, "order:"+o.ID, o.User, 0).Err(); err != nil {
					log.Printf("cache: %v", err)
				}
				if err := rdb.XAck(ctx, "orders", "g", m.ID).Err(); err != nil { // want `ack redis.Client.XAck in handler setLoop also runs when redis.StatusCmd.Err fails: the error is swallowed and the message lost \(IDEM003\)`
					return err
				}
			}
		}
	}
}
