package e2e_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/guard"
)

// TestHashTagOutsideKey: with hash_tag user_id and key [order_id], the same
// order sent for two users has one key and different fingerprints, which is
// guard.ErrKeyConflict on every store. On Redis the record lives in the
// tag's slot, so the generated handler pins each key to its first tag
// (redisguard.PinHashTag) to find the conflict; the second user gets no
// points.
func TestHashTagOutsideKey(t *testing.T) {
	for _, env := range []string{envRedis, envRedisCluster} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			r := openRedisWorld(t, env)
			h := shop.NewAddPointsRedisHandler(r.store, func(ctx context.Context, pipe redis.Pipeliner, m *shop.AddPointsRedis) error {
				pipe.IncrBy(ctx, r.pointsKey(m.UserID), m.Points)
				return nil
			}, r.prefixOpt())
			expectApplied(t, h, `{"order_id":"o1","user_id":"u1","points":10}`)
			expectDuplicate(t, h, `{"order_id":"o1","user_id":"u1","points":10}`)
			expectErr(t, h, `{"order_id":"o1","user_id":"u2","points":10}`, guard.ErrKeyConflict)
			for user, want := range map[string]int64{"u1": 10, "u2": 0} {
				got, err := r.client.Get(t.Context(), r.pointsKey(user)).Int64()
				if err != nil && err != redis.Nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("points of %s = %d, want %d", user, got, want)
				}
			}
		})
	}
}
