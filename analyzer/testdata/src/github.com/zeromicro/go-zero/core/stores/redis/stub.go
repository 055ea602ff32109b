// Package redis is a stub of github.com/zeromicro/go-zero@v1.5.5 core/stores/redis for analyzer tests: signatures mirror the real API.
//
// The commands a handler's verdict depends on: counters and list pushes
// (effects), SET/SADD/HSET/EXPIRE (records of a key), SETNX (a claim), DEL.
package redis

import "context"

type (
	// Option customizes a Redis.
	Option func(r *Redis)

	// A Pair is a key/pair set used in redis zset.
	Pair struct {
		Key   string
		Score int64
	}

	// Redis defines a redis node/cluster. It is thread-safe.
	Redis struct {
		Addr string
		Type string
		Pass string
		tls  bool
	}

	// A RedisConf is a redis config.
	RedisConf struct {
		Host     string
		Type     string `json:",default=node,options=node|cluster"`
		Pass     string `json:",optional"`
		Tls      bool   `json:",optional"`
		NonBlock bool   `json:",default=true"`
	}
)

func MustNewRedis(conf RedisConf, opts ...Option) *Redis { return &Redis{} }

func New(addr string, opts ...Option) *Redis { return &Redis{} }

func NewRedis(conf RedisConf, opts ...Option) (*Redis, error) { return &Redis{}, nil }

func (s *Redis) Incr(key string) (int64, error) { return 0, nil }

func (s *Redis) IncrCtx(ctx context.Context, key string) (val int64, err error) { return }

func (s *Redis) Incrby(key string, increment int64) (int64, error) { return 0, nil }

func (s *Redis) IncrbyCtx(ctx context.Context, key string, increment int64) (val int64, err error) {
	return
}

func (s *Redis) Decr(key string) (int64, error) { return 0, nil }

func (s *Redis) DecrCtx(ctx context.Context, key string) (val int64, err error) { return }

func (s *Redis) Decrby(key string, decrement int64) (int64, error) { return 0, nil }

func (s *Redis) DecrbyCtx(ctx context.Context, key string, decrement int64) (val int64, err error) {
	return
}

func (s *Redis) Hincrby(key, field string, increment int) (int, error) { return 0, nil }

func (s *Redis) HincrbyCtx(ctx context.Context, key, field string, increment int) (val int, err error) {
	return
}

func (s *Redis) Zincrby(key string, increment int64, field string) (int64, error) { return 0, nil }

func (s *Redis) ZincrbyCtx(ctx context.Context, key string, increment int64, field string) (val int64, err error) {
	return
}

func (s *Redis) Lpush(key string, values ...any) (int, error) { return 0, nil }

func (s *Redis) LpushCtx(ctx context.Context, key string, values ...any) (val int, err error) { return }

func (s *Redis) Rpush(key string, values ...any) (int, error) { return 0, nil }

func (s *Redis) RpushCtx(ctx context.Context, key string, values ...any) (val int, err error) { return }

func (s *Redis) Set(key, value string) error { return nil }

func (s *Redis) SetCtx(ctx context.Context, key, value string) error { return nil }

func (s *Redis) Setex(key, value string, seconds int) error { return nil }

func (s *Redis) SetexCtx(ctx context.Context, key, value string, seconds int) error { return nil }

func (s *Redis) Sadd(key string, values ...any) (int, error) { return 0, nil }

func (s *Redis) SaddCtx(ctx context.Context, key string, values ...any) (val int, err error) { return }

func (s *Redis) Hset(key, field, value string) error { return nil }

func (s *Redis) HsetCtx(ctx context.Context, key, field, value string) error { return nil }

func (s *Redis) Hmset(key string, fieldsAndValues map[string]string) error { return nil }

func (s *Redis) HmsetCtx(ctx context.Context, key string, fieldsAndValues map[string]string) error {
	return nil
}

func (s *Redis) Expire(key string, seconds int) error { return nil }

func (s *Redis) ExpireCtx(ctx context.Context, key string, seconds int) error { return nil }

func (s *Redis) Setnx(key, value string) (bool, error) { return false, nil }

func (s *Redis) SetnxCtx(ctx context.Context, key, value string) (val bool, err error) { return }

func (s *Redis) SetnxEx(key, value string, seconds int) (bool, error) { return false, nil }

func (s *Redis) SetnxExCtx(ctx context.Context, key, value string, seconds int) (val bool, err error) {
	return
}

func (s *Redis) Del(keys ...string) (int, error) { return 0, nil }

func (s *Redis) DelCtx(ctx context.Context, keys ...string) (val int, err error) { return }

func (s *Redis) Hdel(key string, fields ...string) (bool, error) { return false, nil }

func (s *Redis) HdelCtx(ctx context.Context, key string, fields ...string) (val bool, err error) {
	return
}

func (s *Redis) Zadd(key string, score int64, value string) (bool, error) { return false, nil }

func (s *Redis) ZaddCtx(ctx context.Context, key string, score int64, value string) (val bool, err error) {
	return
}

func (s *Redis) Zadds(key string, ps ...Pair) (int64, error) { return 0, nil }

func (s *Redis) ZaddsCtx(ctx context.Context, key string, ps ...Pair) (val int64, err error) { return }

func (s *Redis) Zrem(key string, values ...any) (int, error) { return 0, nil }

func (s *Redis) ZremCtx(ctx context.Context, key string, values ...any) (val int, err error) { return }

func (s *Redis) Get(key string) (string, error) { return "", nil }

func (s *Redis) GetCtx(ctx context.Context, key string) (val string, err error) { return }
