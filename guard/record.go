package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/idemkit/idem/guard/internal/core"
)

// Record is a dedup record as operators see it (Store.Inspect).
type Record struct {
	Consumer    string
	Key         string // the encoded key (key_text)
	State       State
	Fingerprint []byte
	Owner       string    // fencing token of the current or last lease
	LeaseUntil  time.Time // zero when no lease is held
	Result      []byte    // stored result of a done key, or the reason of a failed one
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Expired reports whether the record is past its retention at time now (by
// the store's clock) and so behaves as absent. A pending record whose lease is
// still live never expires: its effect may be running.
func (r *Record) Expired(now time.Time) bool {
	if r.State == StatePending && now.Before(r.LeaseUntil) {
		return false
	}
	return !now.Before(r.ExpiresAt)
}

// decideClaim applies the state table to rec, the record found for a key (nil
// if none), at time now by the store's clock, for a claim presenting
// fingerprint fp under delivery d. It is shared by every store (through
// storekit.DecideClaim) so that they all decide alike.
func decideClaim(rec *Record, now time.Time, fp []byte, d Delivery) core.Verdict {
	if rec == nil {
		return core.Verdict{Action: core.ActInsert}
	}
	if rec.Expired(now) {
		return core.Verdict{Action: core.ActReclaim}
	}
	switch rec.State {
	case StateFailed:
		return core.Verdict{Action: core.ActFailed}
	case StateUncertain:
		return core.Verdict{Action: core.ActUncertain}
	}
	if !sameFingerprint(rec.Fingerprint, fp) {
		return core.Verdict{Action: core.ActConflict}
	}
	if rec.State == StateDone {
		return core.Verdict{Action: core.ActDuplicate}
	}
	// pending
	if now.Before(rec.LeaseUntil) {
		return core.Verdict{Action: core.ActInProgress, RetryAfter: rec.LeaseUntil.Sub(now)}
	}
	if d == AtMostOnce {
		return core.Verdict{Action: core.ActMarkUncertain}
	}
	return core.Verdict{Action: core.ActTakeover}
}

// Refuse turns a verdict that does not acquire the key into the answer of a
// store, and reports it to the observer: (Duplicate, nil) for a duplicate,
// otherwise the error of the error table. rec is the record the verdict was
// made on.
func (c Config) refuse(ctx context.Context, consumer, key string, v core.Verdict, rec *Record) (Outcome, error) {
	var (
		d   Decision
		err error
	)
	switch v.Action {
	case core.ActDuplicate:
		c.Observer.Observe(ctx, Event{Decision: DecisionDuplicate, Consumer: consumer, Key: key})
		return Duplicate, nil
	case core.ActConflict:
		d, err = DecisionConflict, errFor(ErrKeyConflict, consumer, "", nil)
	case core.ActFailed:
		d, err = DecisionFailed, errFor(ErrFailed, consumer, reason(rec), nil)
	case core.ActUncertain, core.ActMarkUncertain:
		d, err = DecisionUncertain, errFor(ErrUncertain, consumer, reason(rec), nil)
	case core.ActInProgress:
		// A lease cannot be held longer than the hold limit, so no wait is
		// longer; a record whose lease ends further out (written by hand, or
		// under a clock gone wrong) must not make a broker hold the message
		// for years.
		d, err = DecisionInProgress, &InProgressError{Consumer: consumer, RetryAfter: min(v.RetryAfter, c.LeaseHoldLimit())}
	default:
		return 0, fmt.Errorf("guard: internal error: refuse called with action %d", v.Action)
	}
	c.Observer.Observe(ctx, Event{Decision: d, Consumer: consumer, Key: key, Err: err})
	return 0, err
}

func reason(rec *Record) string {
	if rec == nil || rec.State == StateDone {
		return ""
	}
	return string(rec.Result)
}

// validateClaim checks the consumer and key every store method receives.
// An empty key is ErrEmptyKey and a key longer than MaxKeyLen an error
// naming the consumer and the length, both wrapping ErrInvalidMessage; a
// bad consumer name is a programming error (validateConsumer).
func validateClaim(consumer, key string) error {
	if err := validateConsumer(consumer); err != nil {
		return err
	}
	switch {
	case key == "":
		return ErrEmptyKey
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: consumer %s: key of %d bytes is longer than the maximum of %d (guard.MaxKeyLen)", ErrInvalidMessage, consumer, len(key), MaxKeyLen)
	}
	return nil
}

// validateConsumer checks a consumer name: not empty, at most 191 bytes
// (MySQL's consumer column), valid UTF-8 without NUL bytes (PostgreSQL's
// text column).
func validateConsumer(consumer string) error {
	switch {
	case consumer == "":
		return errors.New("guard: empty consumer name")
	case len(consumer) > 191:
		return fmt.Errorf("guard: consumer name longer than 191 bytes: %.32q…", consumer)
	case strings.IndexByte(consumer, 0) >= 0:
		return fmt.Errorf("guard: consumer name %q contains a NUL byte", consumer)
	case !utf8.ValidString(consumer):
		// PostgreSQL's text column refuses it: every claim would fail.
		return fmt.Errorf("guard: consumer name %q is not valid UTF-8", consumer)
	}
	return nil
}

// keyText is the key as stored for operators: valid UTF-8 without NUL bytes
// (PostgreSQL text rejects NUL; MySQL utf8mb4 rejects invalid UTF-8). The hash,
// not this text, is the identity of the record.
func keyText(key string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(key, "\uFFFD"), "\x00", "\uFFFD")
}
