package guard

import (
	"context"
	"fmt"
	"sync"
)

// Key identity records (WithKeyIdentity).
//
// Each store keeps the key identity of a consumer namespace in a reserved
// record of the consumer, among its dedup records, without a table or key
// of its own: the record of the empty key. The empty key is never a valid
// key (ErrEmptyKey), so no claim, Inspect, Resolve or Forget reaches it, and
// no other key hashes to it. In SQL it is the row (consumer, SHA-256 of "")
// with key_text '', state 'done', the identity in result and an expires_at
// in the year 9999, which Purge also skips by its key_hash; in Redis it is
// the hash "<prefix>:<consumer>:<hex SHA-256 of "">" (e3b0c442…b855), with
// the fields state done, key "", result (the identity) and created, and no
// TTL. Operators read it with the stores' KeyIdentity and delete it with
// ForgetKeyIdentity, after which the next claim records the identity it is
// configured with:
//
//	SELECT consumer, result FROM idem_keys WHERE key_text = '' -- every recorded identity (SQL)
//	HGET "idem_keys:deduct_inventory:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" result
//
// The check runs on the first claim (Do, Claim, Run) of each consumer through
// a store, and its positive answer is kept by the store (and its With views)
// for the life of the process: one round trip per consumer, identity and
// process. A refusal is not kept, so a fix takes effect on the next message.
// Operators' methods (Inspect, Resolve, Forget, Purge) never check.

// KeyIdentityCache keeps the key identities a store has checked; stores
// share one with their With views. Applications do not use it.
type KeyIdentityCache struct {
	mu       sync.Mutex
	ok       map[identityEntry]bool
	inflight map[identityEntry]chan struct{}
}

type identityEntry struct{ scope, consumer, identity string }

// NewKeyIdentityCache returns an empty cache.
func NewKeyIdentityCache() *KeyIdentityCache {
	return &KeyIdentityCache{ok: map[identityEntry]bool{}, inflight: map[identityEntry]chan struct{}{}}
}

// Check runs check unless identity was confirmed before for consumer in
// scope (the store's table or prefix), and remembers a nil answer.
// Concurrent first calls wait for one check instead of each running theirs.
func (c *KeyIdentityCache) Check(ctx context.Context, scope, consumer, identity string, check func(ctx context.Context) error) error {
	k := identityEntry{scope, consumer, identity}
	for {
		c.mu.Lock()
		if c.ok[k] {
			c.mu.Unlock()
			return nil
		}
		if wait, busy := c.inflight[k]; busy {
			c.mu.Unlock()
			select {
			case <-wait:
				continue // confirmed (answer from the map) or failed (check again ourselves)
			case <-ctx.Done():
				return fmt.Errorf("guard: consumer %s: waiting for its key identity check: %w", consumer, ctx.Err())
			}
		}
		done := make(chan struct{})
		c.inflight[k] = done
		c.mu.Unlock()
		err := check(ctx)
		c.mu.Lock()
		delete(c.inflight, k)
		if err == nil {
			c.ok[k] = true
		}
		close(done)
		c.mu.Unlock()
		return err
	}
}

// Forget drops what the cache knows of consumer in scope.
func (c *KeyIdentityCache) Forget(scope, consumer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.ok {
		if k.scope == scope && k.consumer == consumer {
			delete(c.ok, k)
		}
	}
}

// IdentityRecordKey is the key whose record holds a consumer's key identity:
// the empty key, which no claim may use.
const IdentityRecordKey = ""

// CheckKeyIdentity compares the identity configured for consumer with the
// record a store read: its state and result. It returns nil when they
// agree, and a *KeyIdentityError (ErrKeyIdentityChanged) when they differ
// or the record is not one the stores write (a state other than done, or no
// identity). Stores call it.
func CheckKeyIdentity(consumer, configured string, state State, recorded []byte) error {
	switch {
	case state != StateDone:
		return &KeyIdentityError{Consumer: consumer, Configured: configured, Recorded: string(recorded),
			Corrupt: fmt.Sprintf("state %q, want done", state)}
	case len(recorded) == 0:
		return &KeyIdentityError{Consumer: consumer, Configured: configured, Corrupt: "it holds no identity"}
	case string(recorded) != configured:
		return &KeyIdentityError{Consumer: consumer, Recorded: string(recorded), Configured: configured}
	}
	return nil
}
