// Package idem004: the examples of IDEM004's documentation.
package idem004

import (
	"context"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
)

func bad(ctx context.Context, rdb *redis.Client, d amqp.Delivery, user string, n int64) error {
	rdb.SetNX(ctx, "seen:"+d.MessageId, 1, 24*time.Hour) // want `result of dedup check redis.Client.SetNX in handler bad never decides a branch; redis.Client.IncrBy runs for duplicates too \(IDEM004\)`
	return rdb.IncrBy(ctx, "points:"+user, n).Err()
}

func good(ctx context.Context, rdb *redis.Client, d amqp.Delivery, user string, n int64) error {
	ok, err := rdb.SetNX(ctx, "seen:"+d.MessageId, 1, 24*time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	return rdb.IncrBy(ctx, "points:"+user, n).Err() // want `IDEM006`
}
