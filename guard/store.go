package guard

import "context"

// Store is what every store (SQLStore, pgxguard.Store, redisguard.Store) has
// besides its transactional Do, whose transaction type differs per store:
// claims for external effects and the operators' tools. Handlers of external
// effects take a Store.
type Store interface {
	// Claim claims key for an external effect (see the package doc).
	Claim(ctx context.Context, consumer, key string, fp []byte) (*Lease, error)
	// Run claims key, runs apply under the lease and records the outcome; see runLease.
	Run(ctx context.Context, consumer, key string, fp []byte, apply func(ctx context.Context, l *Lease) error) (Outcome, error)
	// ClaimBatch claims the keys of a batch for external effects at once:
	// one Claimed per message, in order (see the package doc on batches).
	ClaimBatch(ctx context.Context, msgs []Message) []Claimed
	// RunBatch claims the keys of a batch at once and runs each acquired
	// key's apply under its lease: one Result per message, in order.
	RunBatch(ctx context.Context, msgs []LeaseMessage) []Result
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
