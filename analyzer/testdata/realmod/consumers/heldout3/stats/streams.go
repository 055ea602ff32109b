// Package stats holds update_stats consumers: Redis Streams consumer groups
// and kafka-go readers.
package stats

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

const (
	stream = "orders:paid"
	group  = "stats"
)

// paid is one orders:paid entry.
type paid struct {
	OrderID string
	Day     string
	Amount  int64
}

func fromEntry(m redis.XMessage) (paid, bool) {
	id, _ := m.Values["order_id"].(string)
	day, _ := m.Values["day"].(string)
	amt, err := strconv.ParseInt(asString(m.Values["amount"]), 10, 64)
	if id == "" || day == "" || err != nil {
		return paid{}, false
	}
	return paid{OrderID: id, Day: day, Amount: amt}, true
}

func asString(v any) string { s, _ := v.(string); return s }

func statsKey(p paid) string {
	var b guard.KeyBuilder
	b.String(p.OrderID)
	b.String(p.Day)
	return b.Key()
}

// StreamWorker counts paid orders per day in Redis hashes.
type StreamWorker struct {
	RDB      *redis.Client
	Store    *redisguard.Store
	Consumer string
	Log      *slog.Logger
}

func (w *StreamWorker) bump(ctx context.Context, p paid) error {
	_, err := w.Store.Do(ctx, "update_stats", statsKey(p), nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.HIncrBy(ctx, "stats:"+p.Day, "orders", 1)
		pipe.HIncrBy(ctx, "stats:"+p.Day, "gmv", p.Amount)
		return nil
	})
	return err
}

// Run reads new entries with XREADGROUP, counts each through redisguard (the
// dedup record and both HINCRBYs in one MULTI) and XACKs only after that
// succeeded; a failed entry stays pending for Reclaim. Malformed entries are
// acked and dropped (poison).
//
// truth: ok
func (w *StreamWorker) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := w.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: group, Consumer: w.Consumer, Streams: []string{stream, ">"}, Count: 50, Block: 5 * time.Second,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				p, ok := fromEntry(m)
				if !ok {
					w.RDB.XAck(ctx, stream, group, m.ID)
					continue
				}
				if err := w.bump(ctx, p); err != nil {
					w.Log.Warn("stats", "id", m.ID, "err", err)
					continue
				}
				w.RDB.XAck(ctx, stream, group, m.ID)
			}
		}
	}
	return nil
}

// RunNaive increments the day's counters straight away and XACKs: an entry
// re-read after a crash between HINCRBY and XACK (or claimed by another
// consumer) is counted twice.
//
// truth: bug IDEM001
func (w *StreamWorker) RunNaive(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := w.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: group, Consumer: w.Consumer, Streams: []string{stream, ">"}, Count: 50, Block: 5 * time.Second,
		}).Result()
		if err != nil {
			if errors.Is(err, redis.Nil) {
				continue
			}
			return err
		}
		for _, m := range res[0].Messages {
			p, ok := fromEntry(m)
			if !ok {
				w.RDB.XAck(ctx, stream, group, m.ID)
				continue
			}
			if err := w.RDB.HIncrBy(ctx, "stats:"+p.Day, "orders", 1).Err(); err != nil {
				continue
			}
			w.RDB.XAck(ctx, stream, group, m.ID)
		}
	}
	return nil
}

// Reclaim takes over entries idle for more than a minute with XAUTOCLAIM and
// runs them through the same guarded bump before XACK; an entry whose first
// attempt did count is a Duplicate and is just acked.
//
// truth: ok
func (w *StreamWorker) Reclaim(ctx context.Context) error {
	start := "0-0"
	for ctx.Err() == nil {
		msgs, next, err := w.RDB.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: stream, Group: group, Consumer: w.Consumer, MinIdle: time.Minute, Start: start, Count: 100,
		}).Result()
		if err != nil {
			return err
		}
		for _, m := range msgs {
			p, ok := fromEntry(m)
			if ok {
				if err := w.bump(ctx, p); err != nil {
					continue
				}
			}
			if err := w.RDB.XAck(ctx, stream, group, m.ID).Err(); err != nil {
				w.Log.Warn("xack", "id", m.ID, "err", err)
			}
		}
		start = next
		if start == "0-0" {
			time.Sleep(30 * time.Second)
		}
	}
	return nil
}

// ReclaimGiveUp lists pending entries, XCLAIMs them and retries the guarded
// bump once; when that fails too it XACKs the entry "so it stops blocking",
// with no dead-letter copy: the order is never counted.
//
// truth: bug IDEM003
func (w *StreamWorker) ReclaimGiveUp(ctx context.Context) error {
	pending, err := w.RDB.XPendingExt(ctx, &redis.XPendingExtArgs{
		Stream: stream, Group: group, Idle: 5 * time.Minute, Start: "-", End: "+", Count: 100,
	}).Result()
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(pending))
	for _, p := range pending {
		ids = append(ids, p.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	msgs, err := w.RDB.XClaim(ctx, &redis.XClaimArgs{
		Stream: stream, Group: group, Consumer: w.Consumer, MinIdle: 5 * time.Minute, Messages: ids,
	}).Result()
	if err != nil {
		return err
	}
	for _, m := range msgs {
		p, ok := fromEntry(m)
		if ok {
			if err := w.bump(ctx, p); err != nil {
				w.Log.Error("giving up on entry", "id", m.ID, "err", err)
			}
		}
		w.RDB.XAck(ctx, stream, group, m.ID)
	}
	return nil
}
