package orders

import (
	"context"

	redis "github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/examples/shop/shopdb"
)

// AddPointsRedis queues the INCRBY of the buyer's points on pipe, the
// transaction that also writes the dedup record: Redis runs both in one
// MULTI/EXEC, or neither. The key carries the user as its hash tag
// (shopdb.PointsKey), the spec's hash_tag, so that on Redis Cluster it lives
// in the slot of the record.
func (s *Service) AddPointsRedis(ctx context.Context, pipe redis.Pipeliner, m *AddPointsRedis) error {
	pipe.IncrBy(ctx, shopdb.PointsKey(s.cfg.RedisPrefix, m.UserID), m.Points)
	return s.afterEffect(ctx)
}
