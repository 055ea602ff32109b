// Package redisguard is a stub of github.com/idemkit/idem@28899d2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package redisguard

import (
	"context"
	"github.com/idemkit/idem/guard"
	redis "github.com/redis/go-redis/v9"
	"time"
)

type DoOption func(*doOptions)

func HashTag(value string) DoOption { return nil }

func KeySlot(key string) int { return 0 }

func New(client redis.UniversalClient, opts ...guard.Option) (*Store, error) { return nil, nil }

type Store struct {
}

func (s *Store) Do(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, pipe redis.Pipeliner) error, opts ...DoOption) (guard.Outcome, error) {
	return 0, nil
}

func (s *Store) WithHashTag(tag string) *Store { return nil }

func (s *Store) Client() redis.UniversalClient { return nil }

func (s *Store) Config() guard.Config { return guard.Config{} }

func (s *Store) RecordKey(consumer string, key string, tag string) string { return "" }

func (s *Store) Claim(ctx context.Context, consumer string, key string, fp []byte) (*guard.Lease, error) {
	return nil, nil
}

func (s *Store) Run(ctx context.Context, consumer string, key string, fp []byte, apply func(ctx context.Context, l *guard.Lease) error) (guard.Outcome, error) {
	return 0, nil
}

func (s *Store) Settle(ctx context.Context, l *guard.Lease, state guard.State, result []byte) error {
	return nil
}

func (s *Store) Release(ctx context.Context, l *guard.Lease) error { return nil }

func (s *Store) Extend(ctx context.Context, l *guard.Lease, d time.Duration) error { return nil }

func (s *Store) Inspect(ctx context.Context, consumer string, key string) (*guard.Record, error) {
	return nil, nil
}

func (s *Store) Resolve(ctx context.Context, consumer string, key string, result []byte) error {
	return nil
}

func (s *Store) Forget(ctx context.Context, consumer string, key string) error { return nil }

func (s *Store) Purge(ctx context.Context) (int64, error) { return 0, nil }

func (s *Store) With(opts ...guard.Option) (*Store, error) { return nil, nil }

func Tagged(tag string, key string) string { return "" }

type doOptions struct {
}
