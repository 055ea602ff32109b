package redisguard_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/redisguard"
)

// BenchmarkRedis compares a message handled by a guarded transactional effect
// (Do: WATCH, read, MULTI INCRBY + record EXEC) with the same effect
// unguarded (a bare INCRBY) on the same client against IDEM_TEST_REDIS, at
// concurrency 1 and 8; every message has a fresh key.
func BenchmarkRedis(b *testing.B) {
	client := redis.NewClient(&redis.Options{Addr: serverAddrs(b, envRedis)[0], PoolSize: 32})
	b.Cleanup(func() { client.Close() })
	ctx := context.Background()
	prefix := randomPrefix()
	store, err := redisguard.New(client, guard.WithTable(prefix), guard.WithRetention(10*time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	f := &fixture{client: client, store: store, prefix: prefix}
	b.Cleanup(f.cleanup)
	const skus = 64
	var seq atomic.Int64
	sku := func(i int64) string { return prefix + ":stock:" + strconv.FormatInt(i%skus, 10) }
	message := map[string]func() error{
		"unguarded": func() error {
			return client.IncrBy(ctx, sku(seq.Add(1)), -1).Err()
		},
		"guarded": func() error {
			i := seq.Add(1)
			var k guard.KeyBuilder
			k.String(strconv.FormatInt(i, 10))
			out, err := store.Do(ctx, "deduct_inventory", k.Key(), nil, func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.IncrBy(ctx, sku(i), -1)
				return nil
			})
			return guardtest.WantApplied(out, err)
		},
	}
	guardtest.BenchGuarded(b, message["unguarded"], message["guarded"])
}
