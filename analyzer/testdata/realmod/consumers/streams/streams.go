// Package streams holds Redis Streams consumers on go-redis v9.
package streams

import (
	"context"
	"log"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// truth: bug IDEM001
func UpdateStats(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "stats", Consumer: "c1", Streams: []string{"orders", ">"}, Count: 10, Block: time.Second}).Result()
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				amount, _ := strconv.ParseInt(m.Values["amount"].(string), 10, 64)
				day := m.Values["day"].(string)
				if err := rdb.HIncrBy(ctx, "stats:"+day, "gmv", amount).Err(); err != nil {
					log.Printf("stats: %v", err)
					continue
				}
				rdb.XAck(ctx, "orders", "stats", m.ID)
			}
		}
	}
}

// truth: ok
func UpdateStatsDedup(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "stats", Consumer: "c1", Streams: []string{"orders", ">"}, Count: 10, Block: time.Second}).Result()
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				day := m.Values["day"].(string)
				ok, err := rdb.SetNX(ctx, "stats:seen:"+m.ID+":"+day, 1, 48*time.Hour).Result()
				if err != nil {
					continue
				}
				if ok {
					amount, _ := strconv.ParseInt(m.Values["amount"].(string), 10, 64)
					rdb.HIncrBy(ctx, "stats:"+day, "gmv", amount)
				}
				rdb.XAck(ctx, "orders", "stats", m.ID)
			}
		}
	}
}

// truth: bug IDEM001
func AddPointsWithLock(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "points", Consumer: "c1", Streams: []string{"orders", ">"}, Count: 10}).Result()
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				user := m.Values["user"].(string)
				lock := "lock:points:" + user
				got, err := rdb.SetNX(ctx, lock, m.ID, 10*time.Second).Result()
				if err != nil || !got {
					continue // another worker holds the user; retry later
				}
				rdb.IncrBy(ctx, "points:"+user, 10)
				rdb.Del(ctx, lock)
				rdb.XAck(ctx, "orders", "points", m.ID)
			}
		}
	}
}

// truth: bug IDEM004 IDEM001
func AddPointsSetNXIgnored(ctx context.Context, rdb *redis.Client) error {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "points", Consumer: "c2", Streams: []string{"orders", ">"}, Count: 10}).Result()
		if err != nil {
			return err
		}
		for _, s := range res {
			for _, m := range s.Messages {
				rdb.SetNX(ctx, "seen:"+m.ID, 1, 24*time.Hour)
				rdb.IncrBy(ctx, "points:"+m.Values["user"].(string), 10)
				rdb.XAck(ctx, "orders", "points", m.ID)
			}
		}
	}
}
