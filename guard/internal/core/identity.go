package core

import (
	"context"
	"fmt"
	"sync"
)

// KeyIdentityCache keeps the key identities a store has checked; stores
// share one with their With views.
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
