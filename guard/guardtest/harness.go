// Package guardtest is the conformance suite every guard store passes, and
// the fault-injection suite that proves the exactly-once / at-most-once /
// at-least-once claims under crashes and redeliveries. A store's tests build a
// Harness for their backend and call Run and RunFaults.
package guardtest

import (
	"context"
	"testing"

	"github.com/idemkit/idem/guard"
)

// Harness connects the suites to one store implementation and its server.
type Harness struct {
	// Name names the backend in test names ("sqlite", "postgres", "redis-cluster", …).
	Name string
	// New returns a store over a fresh, empty dedup table (or key prefix) and
	// fresh, zeroed effect counters, built with opts on top of the
	// backend's defaults. Clean-up is registered on t.
	New func(t testing.TB, opts ...guard.Option) Backend
	// NewCuttable is like New, but the store reaches its server through a
	// connection that cut() severs for good (a loopback proxy that closes every
	// connection and refuses new ones): the server "stops" mid-call. Nil for
	// embedded backends (SQLite).
	NewCuttable func(t testing.TB, opts ...guard.Option) (b Backend, cut func())
	// TTLPurge says the backend expires records by itself (Redis keys live
	// for the retention): Purge has nothing left to delete and may return 0,
	// so the suites check that expired records are gone (Inspect gives nil)
	// instead of counting what Purge deleted.
	TTLPurge bool
}

// Backend is one store with a counter effect that can share its transaction.
type Backend struct {
	Store guard.Store
	// Do runs the transactional effect e through the store's own Do (SQL
	// transaction or Redis MULTI): it adds e.Delta to counter e.Counter inside
	// the transaction, then calls e.Hook (if not nil) and returns its error
	// from apply. So a Hook error rolls the addition back, and
	// guard.Reject(err) from the Hook keeps the key failed.
	Do func(ctx context.Context, consumer, key string, fp []byte, e Effect) (guard.Outcome, error)
	// DoBatch runs the transactional effects of msgs through the store's
	// own DoBatch, each as Do runs its Effect, and returns its results.
	DoBatch func(ctx context.Context, msgs []BatchEffect) []guard.Result
	// Counter reads the committed value of a counter (0 when it never changed).
	Counter func(ctx context.Context, name string) (int64, error)
	// Clone returns another store over the same dedup table (or key prefix)
	// and counters, as another process would open it: built afresh with the
	// options of this one and then opts, sharing nothing with it in memory.
	Clone func(opts ...guard.Option) Backend
	// Tamper changes what the store holds behind its back (SQLTamper,
	// RedisTamper).
	Tamper Tamper
}

// Effect is the transactional effect of Backend.Do: counter += delta.
type Effect struct {
	Counter string
	Delta   int64
	// Hook runs inside the transaction after the addition; its error is
	// apply's. It may block (to hold the claim while others wait) and it may
	// cancel the context the transaction runs under (a simulated crash).
	Hook func(ctx context.Context) error
}

// BatchEffect is one message of Backend.DoBatch: its consumer, key and
// fingerprint, and its Effect.
type BatchEffect struct {
	Consumer    string
	Key         string
	Fingerprint []byte
	Effect      Effect
}
