package kqx

import (
	"context"

	"github.com/zeromicro/go-queue/kq"
	"github.com/zeromicro/go-zero/core/stores/redis"
)

// Points adds a user's points with go-zero's Redis client: INCRBY again on
// a redelivery.
type Points struct{ rds *redis.Redis }

func (p *Points) Consume(ctx context.Context, key, value string) error {
	o := decode(value)
	_, err := p.rds.IncrbyCtx(ctx, "points:"+o.User, int64(o.Qty)) // want `effect redis.Redis.IncrbyCtx in handler Points.Consume is not guarded by a dedup check \(IDEM001\)`
	return err                                                     // want `IDEM003`
}

// OncePoints claims the message's key with SETNX first: its bool decides
// (no IDEM001), but the claim and the INCRBY are not atomic (IDEM006).
type OncePoints struct{ rds *redis.Redis }

func (p *OncePoints) Consume(ctx context.Context, key, value string) error {
	ok, err := p.rds.SetnxExCtx(ctx, "seen:"+key, "1", 86400)
	if err != nil {
		return err // want `IDEM003`
	}
	if !ok {
		return nil // a duplicate
	}
	o := decode(value)
	_, err = p.rds.IncrbyCtx(ctx, "points:"+o.User, int64(o.Qty)) // want `dedup record redis.Redis.SetnxExCtx and effect redis.Redis.IncrbyCtx in handler OncePoints.Consume are in different transactions`
	return err                                                    // want `IDEM003`
}

// Last records the user's last order: SET, idempotent.
type Last struct{ rds *redis.Redis }

func (l *Last) Consume(ctx context.Context, key, value string) error {
	o := decode(value)
	return l.rds.SetCtx(ctx, "last:"+o.User, o.ID) // want `IDEM003`
}

func startRedis(c kq.KqConf, rds *redis.Redis) {
	kq.MustNewQueue(c, &Points{rds: rds}).Start()
	kq.MustNewQueue(c, &OncePoints{rds: rds}).Start()
	kq.MustNewQueue(c, &Last{rds: rds}).Start()
}
