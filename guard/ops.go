package guard

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// Operator is what the operators' tools (cmd/idem) need of a store besides
// Store: listing and counting records, reading one by its key hash, and
// changing one only if it is still as it was read. Every store has it
// (SQLStore, pgxguard.Store, redisguard.Store).
type Operator interface {
	// Records returns the records f selects, in an order of the store's
	// (SQL: by consumer and key hash; Redis: as SCAN finds them). A record
	// it cannot read is an error in the sequence, which goes on after it; an
	// error that ends the listing is the last element.
	Records(ctx context.Context, f RecordFilter) iter.Seq2[*StoredRecord, error]
	// Stats counts the records of consumer ("" for every consumer).
	Stats(ctx context.Context, consumer string) (*Stats, error)
	// Lookup returns the record of consumer whose key hashes to hash (see
	// KeyHash), as it is stored, expired or not; nil when there is none.
	Lookup(ctx context.Context, consumer string, hash [32]byte) (*StoredRecord, error)
	// Amend makes change to the record seen, read by Lookup or Records, if
	// it is still as it was read and holds no live lease by the store's
	// clock; otherwise it changes nothing and returns an error wrapping
	// ErrRecordChanged or ErrLiveLease.
	Amend(ctx context.Context, seen *StoredRecord, change Change) error
}

// StoredRecord is a record as it is stored, expired or not, with what names
// it (the key's hash, and on Redis the hash tag it was written under) and the
// store's clock when it was read.
type StoredRecord struct {
	Record
	Hash [32]byte  // KeyHash of the encoded key: the identity of the record
	Tag  string    // the Redis hash tag the record was written under; "" elsewhere
	Now  time.Time // the store's clock when the record was read
}

// Expired reports whether the record was past its retention when it was
// read, and so behaved as absent (see Record.Expired). A zero ExpiresAt (a
// Redis record without a TTL) never expires.
func (r *StoredRecord) Expired() bool {
	return !r.ExpiresAt.IsZero() && r.Record.Expired(r.Now)
}

// LeaseLive reports whether the record was pending with a live lease when it
// was read: an effect may be running under it.
func (r *StoredRecord) LeaseLive() bool {
	return r.State == StatePending && r.Now.Before(r.LeaseUntil)
}

// RecordFilter selects the records of Operator.Records. Its zero value
// selects every record that has not expired; key identity records
// (IdentityRecordKey) are never listed.
type RecordFilter struct {
	Consumer string        // only this consumer's records; "" any
	States   []State       // only records in these states; empty: any
	MinAge   time.Duration // only records created at least this long ago, by the store's clock; 0: any
	MaxAge   time.Duration // only records created at most this long ago; 0: any
	Expired  bool          // also records past their retention (SQL keeps them until Purge)
}

// Match reports whether r, read at r.Now, passes f: stores that cannot
// filter on the server (Redis) filter with it.
func (f RecordFilter) Match(r *StoredRecord) bool {
	switch {
	case f.Consumer != "" && r.Consumer != f.Consumer,
		!f.Expired && r.Expired(),
		f.MinAge > 0 && r.CreatedAt.After(r.Now.Add(-f.MinAge)),
		f.MaxAge > 0 && r.CreatedAt.Before(r.Now.Add(-f.MaxAge)):
		return false
	}
	if len(f.States) == 0 {
		return true
	}
	for _, s := range f.States {
		if r.State == s {
			return true
		}
	}
	return false
}

// Stats counts the records of a store, per consumer.
type Stats struct {
	Now       time.Time       // the store's clock
	Consumers []ConsumerStats // sorted by consumer
	// Size is how many bytes the records take: the table and its indexes
	// (SQL, as the database estimates it), or the records' memory (Redis,
	// MEMORY USAGE); -1 when the store cannot tell.
	Size int64
}

// ConsumerStats counts the records of one consumer. Key identity records are
// not counted.
type ConsumerStats struct {
	Consumer string
	// States counts the records that have not expired, by state.
	States map[State]int64
	// Expired counts records past their retention, which behave as absent
	// and which Purge deletes (always 0 on Redis, which deletes them itself).
	Expired int64
	// ExpiredLeases counts pending records, not expired, whose lease ran
	// out: the next claim takes them over (at-least-once) or turns them
	// uncertain (at-most-once).
	ExpiredLeases int64
	// OldestPending is when the oldest pending record that has not expired
	// was created; zero when there is none.
	OldestPending time.Time
}

// Add counts r, read at r.Now, in s (of r's consumer): stores that count on
// the client (Redis) add up their records with it.
func (s *ConsumerStats) Add(r *StoredRecord) {
	if r.Expired() {
		s.Expired++
		return
	}
	if s.States == nil {
		s.States = map[State]int64{}
	}
	s.States[r.State]++
	if r.State != StatePending {
		return
	}
	if !r.LeaseLive() {
		s.ExpiredLeases++
	}
	if s.OldestPending.IsZero() || r.CreatedAt.Before(s.OldestPending) {
		s.OldestPending = r.CreatedAt
	}
}

// Change is what Operator.Amend does to a record.
type Change struct {
	// To is the new state: StateDone or StateFailed, whose retention then
	// starts again; "" deletes the record, so that the next delivery runs
	// the effect as if the key was never seen.
	To State
	// Result is the stored result of a done record or the reason of a
	// failed one (at most MaxResultLen bytes).
	Result []byte
}

// FailedChange is the Change that marks a record failed for reason, cut to
// MaxReasonLen bytes as a store keeps an effect's failure.
func FailedChange(reason string) Change {
	return Change{To: StateFailed, Result: reasonText(errors.New(reason))}
}

// Errors of Operator.Amend.
var (
	// ErrRecordChanged: the record is no longer as it was read (a claim, its
	// lease's owner or another operator changed or deleted it); nothing was
	// changed.
	ErrRecordChanged = errors.New("guard: the record changed since it was read")
	// ErrLiveLease: the record holds a live lease, whose effect may be
	// running; nothing was changed.
	ErrLiveLease = errors.New("guard: the record holds a live lease")
)

// CheckAmend checks an Amend before a store carries it out: a record that
// was read, a change to done, failed or deletion, a result that fits, no
// live lease and no key identity record. Stores call it.
func CheckAmend(seen *StoredRecord, change Change) error {
	switch {
	case seen == nil:
		return errors.New("guard: amend: no record")
	case seen.Hash == identityHash:
		return fmt.Errorf("guard: amend %s: the key identity record is changed by ForgetKeyIdentity only", seen.Consumer)
	case change.To != "" && change.To != StateDone && change.To != StateFailed:
		return fmt.Errorf("guard: amend %s: an operator sets a record done or failed, or deletes it, not %q", seen.Consumer, change.To)
	case seen.LeaseLive():
		return fmt.Errorf("guard: amend %s: %w until %s", seen.Consumer, ErrLiveLease, seen.LeaseUntil.UTC().Format(time.RFC3339Nano))
	}
	if err := validateConsumer(seen.Consumer); err != nil {
		return err
	}
	return validateResult(seen.Consumer, change.Result)
}

var _ Operator = (*SQLStore)(nil)
