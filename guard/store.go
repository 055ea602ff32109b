package guard

import "context"

// Store is what every store (SQLStore, pgxguard.Store, redisguard.Store) has
// besides its transactional Do, whose transaction type differs per store:
// claims for external effects and the operators' tools. Handlers of external
// effects take a Store.
type Store interface {
	// Claim claims key for an external effect; see SQLEngine.Claim.
	Claim(ctx context.Context, consumer, key string, fp []byte) (*Lease, error)
	// Run claims key, runs apply under the lease and records the outcome; see RunLease.
	Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error)
	// Inspect returns the record of key, or nil when there is none or it expired.
	Inspect(ctx context.Context, consumer, key string) (*Record, error)
	// Resolve marks key done with result, whatever its state.
	Resolve(ctx context.Context, consumer, key string, result []byte) error
	// Forget deletes the record of key, whatever its state.
	Forget(ctx context.Context, consumer, key string) error
	// Purge deletes expired records in bounded batches and returns how many.
	// It never deletes a key identity record.
	Purge(ctx context.Context) (int64, error)
	// KeyIdentity returns the key identity recorded for consumer
	// (WithKeyIdentity), or "" when none is.
	KeyIdentity(ctx context.Context, consumer string) (string, error)
	// ForgetKeyIdentity deletes the key identity recorded for consumer: the
	// next claim records the one it is configured with.
	ForgetKeyIdentity(ctx context.Context, consumer string) error
	// Config returns the store's resolved options.
	Config() Config
}

var _ Store = (*SQLStore)(nil)
