package pgxguard

import (
	"context"
	"iter"

	"github.com/idemkit/idem/guard"
)

var _ guard.Operator = (*Store)(nil)

// Records implements guard.Operator: the records f selects, by consumer and
// key hash.
func (s *Store) Records(ctx context.Context, f guard.RecordFilter) iter.Seq2[*guard.StoredRecord, error] {
	return s.e.Records(ctx, f)
}

// Stats implements guard.Operator: the records of consumer counted by state.
func (s *Store) Stats(ctx context.Context, consumer string) (*guard.Stats, error) {
	return s.e.Stats(ctx, consumer)
}

// Lookup implements guard.Operator: the record of consumer whose key hashes
// to hash, as it is stored.
func (s *Store) Lookup(ctx context.Context, consumer string, hash [32]byte) (*guard.StoredRecord, error) {
	return s.e.Lookup(ctx, consumer, hash)
}

// Amend implements guard.Operator: change to the record seen, if it is as it
// was read and holds no live lease.
func (s *Store) Amend(ctx context.Context, seen *guard.StoredRecord, change guard.Change) error {
	return s.e.Amend(ctx, seen, change)
}
