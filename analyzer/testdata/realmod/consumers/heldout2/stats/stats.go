// Package stats holds the analytics service's Redis Streams consumers
// (update_stats): per-day order counts and GMV.
package stats

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/idemkit/idem/guard/redisguard"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/db"
)

const (
	stream = "orders:completed"
	group  = "stats"
)

// Aggregator reads orders:completed with XREADGROUP.
type Aggregator struct {
	RDB      *redis.Client
	RG       *redisguard.Store
	Q        *db.Queries
	Consumer string
}

func fields(m redis.XMessage) (day string, gmv int64, shop string) {
	day, _ = m.Values["day"].(string)
	shop, _ = m.Values["shop"].(string)
	if s, ok := m.Values["gmv"].(string); ok {
		gmv, _ = strconv.ParseInt(s, 10, 64)
	}
	return day, gmv, shop
}

func flatten(res []redis.XStream) []redis.XMessage {
	var out []redis.XMessage
	for _, s := range res {
		out = append(out, s.Messages...)
	}
	return out
}

// RunCounters bumps the day's counters and acks each entry. A crash after
// HINCRBY and before XACK leaves the entry pending; when it is claimed
// again the order is counted twice.
//
// truth: bug IDEM001
func (a *Aggregator) RunCounters(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group:    group,
			Consumer: a.Consumer,
			Streams:  []string{stream, ">"},
			Count:    50,
			Block:    5 * time.Second,
		}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				day, gmv, _ := fields(m)
				if err := a.RDB.HIncrBy(ctx, "stats:"+day, "orders", 1).Err(); err != nil {
					return err
				}
				if err := a.RDB.HIncrBy(ctx, "stats:"+day, "gmv", gmv).Err(); err != nil {
					return err
				}
				a.RDB.XAck(ctx, stream, group, m.ID)
			}
		}
	}
	return ctx.Err()
}

// RunGuarded counts through redisguard.Do keyed by entry id + aggregation
// key (the update_stats consumer of the project's examples): record and both HINCRBYs share a
// MULTI, and XACK follows.
//
// truth: ok
func (a *Aggregator) RunGuarded(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 100, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, gmv, _ := fields(m)
			_, err := a.RG.Do(ctx, "update_stats", m.ID+":"+day, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.HIncrBy(ctx, "stats:"+day, "orders", 1)
				pipe.HIncrBy(ctx, "stats:"+day, "gmv", gmv)
				return nil
			})
			if err != nil {
				log.Printf("stats %s: %v", m.ID, err)
				continue
			}
			if err := a.RDB.XAck(ctx, stream, group, m.ID).Err(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// countOnce sets the dedup marker and bumps the counters in one Lua script,
// atomically: 1 when applied now, 0 for a duplicate.
var countOnce = redis.NewScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) then
  redis.call('HINCRBY', KEYS[2], 'orders', 1)
  redis.call('HINCRBY', KEYS[2], 'gmv', ARGV[1])
  return 1
end
return 0
`)

// RunLua counts through one Lua script holding the dedup SET NX and the
// HINCRBYs together; Redis runs a script atomically, so a crash leaves both
// or neither, and a redelivery finds the marker.
//
// truth: ok
func (a *Aggregator) RunLua(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 20, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, gmv, _ := fields(m)
			applied, err := countOnce.Run(ctx, a.RDB,
				[]string{"stats:seen:" + m.ID, "stats:" + day}, gmv, day, 7*24*3600).Int()
			if err != nil {
				return err
			}
			if applied == 0 {
				log.Printf("stats: duplicate %s", m.ID)
			}
			if err := a.RDB.XAck(ctx, stream, group, m.ID).Err(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// RunLastOrder records the latest order per shop with an absolute SET and
// an HSET snapshot: replaying an entry writes the same values again.
//
// truth: ok
func (a *Aggregator) RunLastOrder(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 10, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			_, _, shop := fields(m)
			if err := a.RDB.Set(ctx, "shop:"+shop+":last_order", m.ID, 0).Err(); err != nil {
				return err
			}
			if err := a.RDB.HSet(ctx, "order:"+m.ID, m.Values).Err(); err != nil {
				return err
			}
			a.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return ctx.Err()
}

// RunLookup checks a "processed" set, counts, then adds the id to the set.
// Two consumers claiming the same pending entry both pass SISMEMBER, and a
// crash between HINCRBY and SADD counts the order again on redelivery:
// check, effect and record are three separate commands.
//
// truth: bug IDEM005 IDEM006
func (a *Aggregator) RunLookup(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 50, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, _, _ := fields(m)
			seen, err := a.RDB.SIsMember(ctx, "stats:processed", m.ID).Result()
			if err != nil {
				return err
			}
			if !seen {
				if err := a.RDB.HIncrBy(ctx, "stats:"+day, "orders", 1).Err(); err != nil {
					return err
				}
				a.RDB.SAdd(ctx, "stats:processed", m.ID)
			}
			a.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return ctx.Err()
}

// RunAckFirst acks the whole batch as soon as it is read and counts
// afterwards (guarded): a crash mid-batch loses the rest of the batch.
//
// truth: bug IDEM002
func (a *Aggregator) RunAckFirst(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 100, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		ids := make([]string, 0, len(msgs))
		for _, m := range msgs {
			ids = append(ids, m.ID)
		}
		if len(ids) > 0 {
			if err := a.RDB.XAck(ctx, stream, group, ids...).Err(); err != nil {
				return err
			}
		}
		for _, m := range msgs {
			day, _, _ := fields(m)
			if _, err := a.RG.Do(ctx, "update_stats", m.ID+":"+day, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.HIncrBy(ctx, "stats:"+day, "orders", 1)
				return nil
			}); err != nil {
				log.Printf("stats %s: %v", m.ID, err)
			}
		}
	}
	return ctx.Err()
}

// RunWatched uses WATCH on the marker, returns early when it exists, and
// otherwise queues marker + HINCRBY in one MULTI; a concurrent writer of the
// marker makes EXEC fail with TxFailedErr and the entry stays pending.
// Same mechanism as redisguard, written by hand: atomic check and record.
//
// truth: ok
func (a *Aggregator) RunWatched(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 25, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, _, _ := fields(m)
			marker := "stats:done:" + m.ID
			err := a.RDB.Watch(ctx, func(tx *redis.Tx) error {
				n, err := tx.Exists(ctx, marker).Result()
				if err != nil {
					return err
				}
				if n > 0 {
					return nil
				}
				_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
					pipe.Set(ctx, marker, 1, 7*24*time.Hour)
					pipe.HIncrBy(ctx, "stats:"+day, "orders", 1)
					return nil
				})
				return err
			}, marker)
			if err != nil {
				log.Printf("stats %s: %v", m.ID, err)
				continue
			}
			a.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return ctx.Err()
}

// RunDailySQL feeds the sqlc BumpDailyStats upsert, which accumulates
// (orders = orders + 1, gmv = gmv + EXCLUDED.gmv): a replayed entry is
// counted twice.
//
// truth: bug IDEM001
func (a *Aggregator) RunDailySQL(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 200, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, gmv, _ := fields(m)
			if err := a.Q.BumpDailyStats(ctx, day, gmv); err != nil {
				return fmt.Errorf("bump %s: %w", day, err)
			}
			a.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return ctx.Err()
}

// RunPipelined believes a pipeline is atomic and conditional: it queues
// SETNX and HINCRBY together, but the HINCRBY runs whatever SETNX answered,
// so the marker never stops a duplicate.
//
// truth: bug IDEM001 IDEM004
func (a *Aggregator) RunPipelined(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 50, Block: 5 * time.Second}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, gmv, _ := fields(m)
			_, err := a.RDB.Pipelined(ctx, func(pipe redis.Pipeliner) error {
				pipe.SetNX(ctx, "stats:seen:"+m.ID, 1, 24*time.Hour)
				pipe.HIncrBy(ctx, "stats:"+day, "gmv", gmv)
				return nil
			})
			if err != nil {
				return err
			}
			a.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return ctx.Err()
}

// RunNoAck reads with NOACK (entries never enter the PEL, the stream's
// auto-ack) and counts with a plain HINCRBY: a crash loses entries and a
// producer resend counts twice.
//
// truth: bug IDEM001 IDEM007
func (a *Aggregator) RunNoAck(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: a.Consumer, Streams: []string{stream, ">"}, Count: 100, Block: 5 * time.Second, NoAck: true}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		msgs := flatten(res)
		for _, m := range msgs {
			day, _, _ := fields(m)
			a.RDB.HIncrBy(ctx, "stats:"+day, "orders", 1)
		}
	}
	return ctx.Err()
}
