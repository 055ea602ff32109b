package points

import (
	"context"
	"errors"

	redis "github.com/redis/go-redis/v9"
)

// DailyBonus queues the effect of m, a message of the daily_bonus consumer, on
// pipe, the transaction that also writes its dedup record: Redis runs both in
// one MULTI/EXEC, or neither. It must only queue commands, never run them, and
// may be called again when a concurrent duplicate makes the store retry; an
// error sends nothing. Returning guard.Reject(err) refuses the message for
// good. The record lives under the hash tag of the message's day field: name
// every key with redisguard.Tagged(<day>, key), so that it is in the record's
// Redis Cluster slot.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) DailyBonus(ctx context.Context, pipe redis.Pipeliner, m *DailyBonus) error {
	// TODO: queue the effect of m on pipe.
	return errors.New("daily_bonus: effect not implemented")
}
