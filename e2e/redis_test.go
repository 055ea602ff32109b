package e2e_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/redisguard"
)

// redisWorld is a Redis server or cluster prepared for a test: a key prefix
// of its own for the dedup records and the effects' keys, all deleted when
// the test ends.
type redisWorld struct {
	client redis.UniversalClient
	store  *redisguard.Store
	prefix string // of the dedup records (guard.WithTable)
	sfx    string // in every key of the test
}

// openRedisWorld connects to the server (IDEM_TEST_REDIS) or the cluster
// (IDEM_TEST_REDIS_CLUSTER, comma-separated addresses) that env names.
func openRedisWorld(t testing.TB, env string) *redisWorld {
	t.Helper()
	addrs := strings.Split(guardtest.Env(t, env), ",")
	var client redis.UniversalClient
	if env == envRedisCluster {
		client = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	} else {
		client = redis.NewClient(&redis.Options{Addr: addrs[0]})
	}
	sfx := suffix(t)
	r := &redisWorld{client: client, prefix: "e2e_" + sfx + "_keys", sfx: sfx}
	t.Cleanup(func() {
		r.deleteKeys(t)
		client.Close()
	})
	store, err := redisguard.New(client, guard.WithTable(r.prefix))
	if err != nil {
		t.Fatal(err)
	}
	r.store = store
	return r
}

// deleteKeys deletes every key of the test, on every master of a cluster.
func (r *redisWorld) deleteKeys(t testing.TB) {
	ctx := context.Background()
	del := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, "*"+r.sfx+"*", 100).Iterator()
		for iter.Next(ctx) {
			if err := c.Del(ctx, iter.Val()).Err(); err != nil {
				return err
			}
		}
		return iter.Err()
	}
	var err error
	switch c := r.client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, del)
	case *redis.Client:
		err = del(ctx, c)
	}
	if err != nil {
		t.Errorf("deleting the test's keys: %v", err)
	}
}

func (r *redisWorld) prefixOpt() guard.Option { return guard.WithTable(r.prefix) }

// tamper reaches the world's (untagged) records behind the store.
func (r *redisWorld) tamper() guardtest.Tamper {
	return guardtest.RedisTamper(r.client, func(consumer, key string) string { return r.store.RecordKey(consumer, key, "") },
		func(consumer string) string { return r.prefix + ":" + consumer + ":*" })
}

// pointsKey is the key of a user's points, tagged with the user (the
// consumer's hash_tag), so that it shares the dedup record's slot.
func (r *redisWorld) pointsKey(user string) string {
	return redisguard.Tagged(user, "e2e_"+r.sfx+"_points:"+user)
}

func (r *redisWorld) pointsOf(t testing.TB, user string) int64 {
	t.Helper()
	n, err := r.client.Get(context.Background(), r.pointsKey(user)).Int64()
	if err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	return n
}

// TestAddPointsRedis runs add_points_redis (effect redis, hash_tag user_id)
// on a Redis server and on a Redis Cluster: the points and the dedup record
// are written in one MULTI/EXEC, in the user's slot.
func TestAddPointsRedis(t *testing.T) {
	t.Parallel()
	for _, env := range []string{envRedis, envRedisCluster} {
		name := map[string]string{envRedis: "redis", envRedisCluster: "redis-cluster"}[env]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := openRedisWorld(t, env)
			h := shop.NewAddPointsRedisHandler(r.store, func(ctx context.Context, pipe redis.Pipeliner, m *shop.AddPointsRedis) error {
				pipe.IncrBy(ctx, r.pointsKey(m.UserID), m.Points)
				return nil
			}, r.prefixOpt())

			deliverThrice(t, h, `{"order_id":"o1","user_id":"u1","points":10}`)
			expectInt(t, "points of u1", r.pointsOf(t, "u1"), 10)
			// Users in other slots.
			for _, user := range []string{"u2", "u3", "u4"} {
				deliverThrice(t, h, `{"order_id":"o-`+user+`","user_id":"`+user+`","points":3}`)
				expectInt(t, "points of "+user, r.pointsOf(t, user), 3)
			}

			expectOneApplied(t, deliverConcurrently(t, h, `{"order_id":"o2","user_id":"u1","points":5}`, 3), false)
			expectInt(t, "points of u1", r.pointsOf(t, "u1"), 15)

			expectErr(t, h, `{"order_id":"o1","user_id":"u1","points":11}`, guard.ErrKeyConflict)
			// The same order for another user: the hash tag (user_id) is
			// not part of the key, so its record would live in another
			// slot; the handler pins the key to its first tag
			// (redisguard.PinHashTag) and refuses the second.
			expectErr(t, h, `{"order_id":"o1","user_id":"u5","points":10}`, guard.ErrKeyConflict)
			expectInt(t, "points of u5", r.pointsOf(t, "u5"), 0)
			expectInvalid(t, h,
				`{"user_id":"u1","points":1}`,
				`{"order_id":"o3","points":1}`,
				`{"order_id":"o3","user_id":null,"points":1}`,
				`{"order_id":"o3","user_id":"","points":1}`,
				`{"order_id":"o3","user_id":"{u1}","points":1}`,
				`{"order_id":"o3","user_id":"u1","points":"many"}`,
			)
			expectInt(t, "points of u1", r.pointsOf(t, "u1"), 15)

			// An effect key outside the user's slot is refused before EXEC:
			// nothing runs, nothing is recorded, and the redelivery through a
			// correct handler applies.
			untagged := "e2e_" + r.sfx + "_points_untagged"
			for redisguard.KeySlot(untagged) == redisguard.KeySlot("u1") {
				untagged += "_"
			}
			bad := shop.NewAddPointsRedisHandler(r.store, func(ctx context.Context, pipe redis.Pipeliner, m *shop.AddPointsRedis) error {
				pipe.IncrBy(ctx, r.pointsKey(m.UserID), m.Points)
				pipe.IncrBy(ctx, untagged, m.Points)
				return nil
			}, r.prefixOpt())
			body := `{"order_id":"o4","user_id":"u1","points":1}`
			if out, err := bad.Handle(testContext(t), []byte(body)); err == nil {
				t.Fatalf("an effect key in another slot = (%v, nil), want an error", out)
			}
			if n, err := r.client.Exists(context.Background(), untagged).Result(); err != nil || n != 0 {
				t.Errorf("untagged key exists: %d, %v", n, err)
			}
			expectInt(t, "points of u1", r.pointsOf(t, "u1"), 15)
			deliverThrice(t, h, body)
			expectInt(t, "points of u1", r.pointsOf(t, "u1"), 16)
		})
	}
}

// TestHashTagUUID runs add_points_account, whose hash_tag is a uuid field:
// a UUID is one key and one hash tag however it is spelled, so the same
// message with its account in upper and then lower case is a duplicate.
func TestHashTagUUID(t *testing.T) {
	t.Parallel()
	for _, env := range []string{envRedis, envRedisCluster} {
		name := map[string]string{envRedis: "redis", envRedisCluster: "redis-cluster"}[env]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := openRedisWorld(t, env)
			key := func(account string) string {
				return redisguard.Tagged(account, "e2e_"+r.sfx+"_points:"+account)
			}
			h := shop.NewAddPointsAccountHandler(r.store, func(ctx context.Context, pipe redis.Pipeliner, m *shop.AddPointsAccount) error {
				pipe.IncrBy(ctx, key(m.AccountID), m.Points)
				return nil
			}, r.prefixOpt())
			const account = "6f1c2a4e-9b1d-4c3e-8f00-0123456789ab"
			expectApplied(t, h, `{"order_id":"o1","account_id":"6F1C2A4E-9B1D-4C3E-8F00-0123456789AB","points":10}`)
			expectDuplicate(t, h, `{"order_id":"o1","account_id":"`+account+`","points":10}`)
			deliverThrice(t, h, `{"order_id":"o2","account_id":"`+account+`","points":5}`)
			n, err := r.client.Get(context.Background(), key(account)).Int64()
			if err != nil || n != 15 {
				t.Errorf("points of the account = %d, %v; want 15", n, err)
			}
			expectInvalid(t, h,
				`{"order_id":"o3","account_id":"00000000-0000-0000-0000-000000000000","points":1}`,
				`{"order_id":"o3","account_id":"not-a-uuid","points":1}`,
				`{"order_id":"o3","points":1}`,
			)
		})
	}
}
