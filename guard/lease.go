package guard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// leaseInfo describes a claim to newLease.
type leaseInfo struct {
	Consumer string
	Key      string        // the encoded key
	Owner    string        // fencing token (core.NewOwnerToken)
	Outcome  Outcome       // Applied: the caller holds the lease; Duplicate: done before
	Result   []byte        // the stored result, for a duplicate
	Duration time.Duration // the lease's length, for an acquired claim
	Takeover bool          // the lease was taken over from an expired owner
	Config   Config        // the claim's options (observer, delivery, on_error)
	Started  time.Time     // when the claim began, for Event.Claim; zero: not measured
}

// Lease is a claim on a key for an external effect (see the package doc). It is
// returned by Claim: when Outcome is Duplicate the effect ran before and the
// lease holds nothing but the stored Result; when it is Applied the caller
// holds the key until the lease runs out and must end it with exactly one of
// Complete, Fail or Release. A Lease is safe for concurrent use.
type Lease struct {
	backend  core.LeaseBackend
	cfg      Config
	consumer string
	key      string
	owner    string
	outcome  Outcome
	takeover bool
	started  time.Time
	claimed  time.Duration // Event.Claim of the lease's end

	mu     sync.Mutex
	until  time.Time
	result []byte
	ended  bool
	lost   bool // ended by ErrLeaseLost: later calls answer it again
}

// newLease returns the Lease of a claim.
func newLease(b core.LeaseBackend, info leaseInfo) *Lease {
	now := time.Now()
	return &Lease{
		backend:  b,
		cfg:      info.Config,
		consumer: info.Consumer,
		key:      info.Key,
		owner:    info.Owner,
		outcome:  info.Outcome,
		takeover: info.Takeover,
		started:  now,
		claimed:  since(info.Started, now),
		until:    now.Add(info.Duration),
		result:   info.Result,
		ended:    info.Outcome != Applied,
	}
}

// ref names the record l holds, for its backend.
func (l *Lease) ref() core.LeaseRef {
	return core.LeaseRef{Consumer: l.consumer, Key: l.key, Owner: l.owner}
}

// Key returns the idempotency key to hand to the external provider (an
// Idempotency-Key header, say): stable for the consumer and key across
// retries and takeovers, so the provider can drop a repeat we could not.
func (l *Lease) Key() string { return ProviderKey(l.consumer, l.key) }

// EncodedKey returns the business key in the v1 key encoding.
func (l *Lease) EncodedKey() string { return l.key }

// Consumer returns the consumer name.
func (l *Lease) Consumer() string { return l.consumer }

// Owner returns the fencing token of this lease.
func (l *Lease) Owner() string { return l.owner }

// Outcome is Applied when the caller holds the lease, Duplicate when the key
// was done before.
func (l *Lease) Outcome() Outcome { return l.outcome }

// TakenOver reports whether this lease was taken over from an owner whose
// lease expired (at-least-once): the effect may have run before, so the
// provider's idempotency key matters.
func (l *Lease) TakenOver() bool { return l.takeover }

// Result returns the stored result of a duplicate, or the result set with
// SetResult.
func (l *Lease) Result() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.result
}

// SetResult sets the result that Run stores when apply returns nil.
func (l *Lease) SetResult(result []byte) {
	l.mu.Lock()
	l.result = result
	l.mu.Unlock()
}

// Until returns when the lease ends, estimated on the local clock from the
// store's answer.
func (l *Lease) Until() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

var (
	errNotHeld       = errors.New("guard: lease is not held")
	errResultTooLong = errors.New("guard: result too long")
)

// validateResult checks a result a store is to keep (Lease.Complete,
// Store.Resolve): at most MaxResultLen bytes.
func validateResult(consumer string, result []byte) error {
	if len(result) > MaxResultLen {
		return fmt.Errorf("%w: consumer %s: result of %d bytes is longer than the maximum of %d (guard.MaxResultLen)",
			errResultTooLong, consumer, len(result), MaxResultLen)
	}
	return nil
}

func (l *Lease) begin() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.outcome != Applied {
		return fmt.Errorf("%w: the key was a duplicate", errNotHeld)
	}
	if l.lost {
		return errFor(ErrLeaseLost, l.consumer, "", nil)
	}
	if l.ended {
		return fmt.Errorf("%w: it was already completed, failed or released", errNotHeld)
	}
	return nil
}

func (l *Lease) end(err error) {
	if err == nil || errors.Is(err, ErrLeaseLost) {
		l.mu.Lock()
		l.ended = true
		l.lost = err != nil
		l.mu.Unlock()
	}
	if errors.Is(err, ErrLeaseLost) {
		l.observe(DecisionLeaseLost, err)
	}
}

func (l *Lease) observe(d Decision, err error) {
	held := time.Since(l.started) // a lease's effect is the time it was held
	l.cfg.Observer.Observe(context.Background(), Event{
		Decision: d, Consumer: l.consumer, Key: l.key, Err: err, Duration: held,
		Claim: l.claimed, Effect: held,
	})
}

// Complete records the effect as done with an optional result that later
// duplicates can read, of at most MaxResultLen bytes (a longer one is
// refused and the lease stays held). It fails with ErrLeaseLost when the
// lease was taken over (or the key resolved or forgotten) meanwhile.
func (l *Lease) Complete(ctx context.Context, result []byte) error {
	if err := l.begin(); err != nil {
		return err
	}
	if err := validateResult(l.consumer, result); err != nil {
		return err // refused before the store, which might not hold it: the lease stays held
	}
	err := l.backend.Settle(ctx, l.ref(), string(StateDone), result)
	l.end(err)
	if err == nil {
		l.SetResult(result)
		l.observe(DecisionApplied, nil)
	}
	return err
}

// Fail keeps the key as failed with reason: every later delivery gets
// ErrFailed. Use it for permanent errors of the provider.
func (l *Lease) Fail(ctx context.Context, reason error) error {
	return l.settleError(ctx, StateFailed, reason)
}

func (l *Lease) settleError(ctx context.Context, state State, reason error) error {
	if err := l.begin(); err != nil {
		return err
	}
	var text []byte
	if reason != nil {
		text = reasonText(reason)
	}
	err := l.backend.Settle(ctx, l.ref(), string(state), text)
	l.end(err)
	if err == nil {
		d := DecisionFailed
		if state == StateUncertain {
			d = DecisionUncertain
		}
		l.observe(d, reason)
	}
	return err
}

// Release deletes the claim so that a redelivery runs the effect again. Use it
// only when the effect certainly did not happen.
func (l *Lease) Release(ctx context.Context) error {
	if err := l.begin(); err != nil {
		return err
	}
	err := l.backend.Release(ctx, l.ref())
	l.end(err)
	if err == nil {
		l.observe(DecisionReleased, nil)
	}
	return err
}

// Extend moves the end of the lease to d from now (store clock), for effects
// that run longer than the lease. d is at least MinLease. It fails with
// ErrLeaseLost when the lease was taken over, and with ErrLeaseHoldExceeded,
// leaving the lease as it was, when the lease would then end later after its
// claim than Config.LeaseHoldLimit (WithMaxLeaseHold): measured on the local
// monotonic clock from the moment Claim returned, so a handler stuck in a
// loop of extensions cannot hold its key for ever.
func (l *Lease) Extend(ctx context.Context, d time.Duration) error {
	if d < MinLease {
		return fmt.Errorf("guard: lease extension %s is below the minimum of %s", d, MinLease)
	}
	if err := l.begin(); err != nil {
		return err
	}
	limit := l.cfg.LeaseHoldLimit()
	if held := time.Since(l.started); d > limit-held { // not held+d > limit: that overflows for a huge d
		return fmt.Errorf("%w: consumer %s: the lease was claimed %s ago; extending it by %s would pass the maximum hold of %s (WithMaxLeaseHold)",
			ErrLeaseHoldExceeded, l.consumer, held.Round(time.Millisecond), d, limit)
	}
	err := l.backend.Extend(ctx, l.ref(), d)
	if err == nil {
		l.mu.Lock()
		l.until = time.Now().Add(d)
		l.mu.Unlock()
	} else if errors.Is(err, ErrLeaseLost) {
		l.end(err)
	}
	return err
}

// settleTimeout bounds how long Run waits to record an outcome after apply
// returned, independent of the caller's context: an effect that happened must
// be recorded even when the caller gave up meanwhile.
const settleTimeout = 10 * time.Second

// runLease runs apply under the acquired lease l and records its outcome, as
// every store's Run does:
//   - apply returns nil: Complete with the result set by SetResult → Applied;
//     a result longer than MaxResultLen keeps the key failed instead (the
//     effect ran and must not run again) → ErrFailed.
//   - apply returns a Reject error, or on_error is keep: the key is failed → ErrFailed.
//   - at-most-once and the error is not NotPerformed: the key is uncertain → ErrUncertain.
//   - otherwise the claim is released and apply's error is returned (a retry runs again).
//
// A duplicate lease returns (Duplicate, nil) without calling apply.
func runLease(ctx context.Context, l *Lease, apply func(ctx context.Context, l *Lease) error) (Outcome, error) {
	if l.outcome == Duplicate {
		return Duplicate, nil
	}
	err := apply(ctx, l)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	if err == nil {
		cerr := l.Complete(sctx, l.Result())
		if cerr == nil {
			return Applied, nil
		}
		if !errors.Is(cerr, errResultTooLong) {
			return 0, cerr
		}
		// The effect happened but its result cannot be kept. Failing the key
		// records that it ran, so no redelivery runs it again; an operator
		// who knows it succeeded resolves it.
		err = fmt.Errorf("the effect ran, but its result was not recorded: %w", cerr)
		if serr := l.settleError(sctx, StateFailed, err); serr != nil {
			return 0, errors.Join(err, serr)
		}
		return 0, errFor(ErrFailed, l.consumer, "", err)
	}
	var (
		sentinel error
		state    State
	)
	switch {
	case IsRejected(err) || l.cfg.OnError == Keep:
		sentinel, state = ErrFailed, StateFailed
	case l.cfg.Delivery == AtMostOnce && !IsNotPerformed(err):
		sentinel, state = ErrUncertain, StateUncertain
	default:
		if rerr := l.Release(sctx); rerr != nil {
			return 0, errors.Join(err, rerr)
		}
		return 0, err
	}
	if serr := l.settleError(sctx, state, err); serr != nil {
		return 0, errors.Join(err, serr)
	}
	return 0, errFor(sentinel, l.consumer, "", err)
}
