package orders

import (
	"context"
	"errors"

	redis "github.com/redis/go-redis/v9"
)

// AddPointsRedis queues the effect of m, a message of the add_points_redis
// consumer, on pipe, the transaction that also writes its dedup record: Redis
// runs both in one MULTI/EXEC, or neither. It must only queue commands, never
// run them, and may be called again when a concurrent duplicate makes the store
// retry; an error sends nothing. Returning guard.Reject(err) refuses the
// message for good. The record lives under the hash tag of the message's
// user_id field: name every key with redisguard.Tagged(<user_id>, key), so that
// it is in the record's Redis Cluster slot.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) AddPointsRedis(ctx context.Context, pipe redis.Pipeliner, m *AddPointsRedis) error {
	// TODO: queue the effect of m on pipe.
	return errors.New("add_points_redis: effect not implemented")
}
