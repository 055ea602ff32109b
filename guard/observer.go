package guard

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// Decision names what a store decided; every decision reaches the Observer.
type Decision string

// The decisions reported to an Observer.
const (
	DecisionApplied    Decision = "applied"     // the effect ran and its record is stored
	DecisionDuplicate  Decision = "duplicate"   // the key was done before
	DecisionInProgress Decision = "in_progress" // another worker holds a live lease
	DecisionTakeover   Decision = "takeover"    // an expired lease was taken over (at-least-once)
	DecisionUncertain  Decision = "uncertain"   // the key is (or became) uncertain
	DecisionConflict   Decision = "conflict"    // same key, different fingerprint
	DecisionLeaseLost  Decision = "lease_lost"  // our lease was taken before we completed
	DecisionReleased   Decision = "released"    // an external error released the key
	DecisionFailed     Decision = "failed"      // the key is (or became) failed
	DecisionPartial    Decision = "partial"     // a Redis effect failed after EXEC
	DecisionPurged     Decision = "purged"      // Purge deleted expired records
	DecisionRetried    Decision = "retried"     // a transaction was retried
)

// Event is one decision of a store.
type Event struct {
	Decision Decision
	Consumer string // empty for purges
	Key      string // encoded key; empty for purges
	Attempt  int    // 1 for the first try; for DecisionRetried the try that failed
	Count    int64  // rows purged, for DecisionPurged
	Err      error  // the error behind the decision, if any
	Duration time.Duration

	// Claim is how long the store took to claim the key: from the start of
	// the call (Do, Claim, Run) to the claim's decision, retries included.
	// It is reported once per claim, on the decision the claim ends in: a
	// refusal (duplicate, in_progress, conflict, failed, uncertain), Do's
	// applied, or the end of an acquired lease (applied, failed, uncertain,
	// released, lease_lost). Zero where it is not measured: takeover (its
	// lease's end reports it), retried, purged, partial, and a rejected Do.
	Claim time.Duration
	// Effect is how long the effect ran: Do's apply function (on Redis,
	// queuing the commands and MULTI … EXEC), or for a lease the time it was
	// held, from the claim's answer until Complete, Fail or Release settled
	// it (their round trip included; the same as Duration). Reported on Do's
	// applied and on the end of a lease; zero elsewhere.
	Effect time.Duration
}

// Observer receives every decision of a store. It is called synchronously on
// the handling goroutine and must be safe for concurrent use and fast.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f.
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

// refuseClaim is Config.Refuse for a claim that took claimed: the decision
// it reports carries claimed as Event.Claim.
func (c Config) refuseClaim(ctx context.Context, claimed time.Duration, consumer, key string, v core.Verdict, rec *Record) (Outcome, error) {
	c.Observer = claimTimed{c.Observer, claimed}
	return c.refuse(ctx, consumer, key, v, rec)
}

// claimTimed sets Event.Claim on the events that reach o.
type claimTimed struct {
	o     Observer
	claim time.Duration
}

// Observe sets the claim's time on e, unless it has one, and passes it on.
func (t claimTimed) Observe(ctx context.Context, e Event) {
	if e.Claim == 0 {
		e.Claim = t.claim
	}
	t.o.Observe(ctx, e)
}

// since is the time from start to now, or 0 for a zero start.
func since(start, now time.Time) time.Duration {
	if start.IsZero() {
		return 0
	}
	return now.Sub(start)
}

type nopObserver struct{}

func (nopObserver) Observe(context.Context, Event) {}

// maxLogKey is how much of a key NewSlogObserver logs: keys may be up to
// MaxKeyLen (1 MiB), and every decision on them would be a log line of that
// size.
const maxLogKey = 512

// logKey is key as logged: cut to maxLogKey bytes, with its length.
func logKey(key string) string {
	if len(key) <= maxLogKey {
		return key
	}
	return fmt.Sprintf("%s… (%d bytes)", key[:maxLogKey], len(key))
}

// NewSlogObserver returns an Observer that logs each decision to l: applied,
// duplicate and purged at Debug, retried, in_progress, released and takeover at
// Info, conflict, failed, uncertain, lease_lost and partial at Warn. Keys
// longer than 512 bytes are logged cut, with their length.
func NewSlogObserver(l *slog.Logger) Observer {
	return ObserverFunc(func(ctx context.Context, e Event) {
		level := slog.LevelDebug
		switch e.Decision {
		case DecisionRetried, DecisionInProgress, DecisionReleased, DecisionTakeover:
			level = slog.LevelInfo
		case DecisionConflict, DecisionFailed, DecisionUncertain, DecisionLeaseLost, DecisionPartial:
			level = slog.LevelWarn
		}
		if !l.Enabled(ctx, level) {
			return
		}
		attrs := []slog.Attr{slog.String("decision", string(e.Decision))}
		if e.Consumer != "" {
			attrs = append(attrs, slog.String("consumer", e.Consumer), slog.String("key", logKey(e.Key)))
		}
		if e.Attempt > 1 || e.Decision == DecisionRetried {
			attrs = append(attrs, slog.Int("attempt", e.Attempt))
		}
		if e.Decision == DecisionPurged {
			attrs = append(attrs, slog.Int64("count", e.Count))
		}
		if e.Duration > 0 {
			attrs = append(attrs, slog.Duration("duration", e.Duration))
		}
		if e.Err != nil {
			attrs = append(attrs, slog.String("error", e.Err.Error()))
		}
		l.LogAttrs(ctx, level, "idem guard", attrs...)
	})
}
