package redisguard

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// identityScript records the key identity ARGV[1] at KEYS[1] when nothing
// is there, and returns {1}; otherwise it changes nothing and returns {0,
// type, state, result}, type being the Redis type of KEYS[1] (a hash when
// the stores wrote it). The record has no TTL: the retention never ends it.
var identityScript = redis.NewScript(luaNow + `
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
  if ARGV[1] == '' then
    return {0, t, false, false}
  end
  redis.call('HSET', KEYS[1], 'state', 'done', 'key', '', 'result', ARGV[1], 'created', nows)
  return {1}
end
if t ~= 'hash' then
  return {0, t, false, false}
end
local cur = redis.call('HMGET', KEYS[1], 'state', 'result')
return {0, t, cur[1], cur[2]}
`)

// identityKey is the record of consumer's key identity: the record of the
// empty key, never under a hash tag (see the guard package's documentation
// of key identities).
func (s *Store) identityKey(consumer string) string {
	return s.RecordKey(consumer, guard.IdentityRecordKey, "")
}

// checkIdentity checks consumer's key identity (guard.WithKeyIdentity) the
// first time it claims through the store or one of its views.
func (s *Store) checkIdentity(ctx context.Context, consumer string) error {
	id := s.cfg.KeyIdentity
	if id == "" {
		return nil
	}
	return s.ids.Check(ctx, s.cfg.Table, consumer, id, func(ctx context.Context) error {
		r, err := s.identity(ctx, consumer, id)
		if err != nil || r == nil {
			return err // a transport error, or recorded now
		}
		return storekit.CheckKeyIdentity(consumer, id, r.state, r.recorded)
	})
}

// identityRecord is what identityScript found.
type identityRecord struct {
	state    guard.State // "<a Redis string>" and the like for a key that is not a hash
	recorded []byte
}

// identity runs identityScript: with id not empty it records id when no
// identity is. It returns the record found, or nil when there was none.
func (s *Store) identity(ctx context.Context, consumer, id string) (*identityRecord, error) {
	reply, err := identityScript.Run(ctx, s.client, []string{s.identityKey(consumer)}, id).Slice()
	if err != nil {
		return nil, fmt.Errorf("redisguard: key identity of %s: %w", consumer, err)
	}
	if len(reply) == 1 {
		return nil, nil // recorded
	}
	if len(reply) != 4 {
		return nil, fmt.Errorf("redisguard: key identity of %s: unexpected reply %v", consumer, reply)
	}
	switch typ, _ := reply[1].(string); typ {
	case "none":
		return nil, nil
	case "hash":
	default:
		return &identityRecord{state: guard.State("<a Redis " + typ + ">")}, nil
	}
	r := &identityRecord{}
	if v, ok := reply[2].(string); ok {
		r.state = guard.State(v)
	}
	if v, ok := reply[3].(string); ok {
		r.recorded = []byte(v)
	}
	return r, nil
}

// KeyIdentity returns the key identity recorded for consumer (see
// guard.WithKeyIdentity), or "" when none is. A record the stores do not
// write is an error wrapping guard.ErrKeyIdentityChanged.
func (s *Store) KeyIdentity(ctx context.Context, consumer string) (string, error) {
	if err := storekit.ValidateConsumer(consumer); err != nil {
		return "", err
	}
	r, err := s.identity(ctx, consumer, "")
	if err != nil || r == nil {
		return "", err
	}
	if r.state != guard.StateDone || len(r.recorded) == 0 {
		return string(r.recorded), storekit.CheckKeyIdentity(consumer, "", r.state, r.recorded)
	}
	return string(r.recorded), nil
}

// ForgetKeyIdentity deletes the key identity recorded for consumer, so that
// the next claim records the identity it is configured with, and forgets
// this store's check of it (other processes keep theirs until they
// restart).
func (s *Store) ForgetKeyIdentity(ctx context.Context, consumer string) error {
	if err := storekit.ValidateConsumer(consumer); err != nil {
		return err
	}
	err := s.client.Del(ctx, s.identityKey(consumer)).Err()
	s.ids.Forget(s.cfg.Table, consumer)
	if err != nil {
		return fmt.Errorf("redisguard: forget the key identity of %s: %w", consumer, err)
	}
	return nil
}
