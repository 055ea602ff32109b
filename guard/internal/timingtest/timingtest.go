// Package timingtest checks that a store fills Event.Claim and Event.Effect
// (the durations guard/otelguard turns into histograms) on the decisions
// that carry them, through guardtest's harness of the store. Only tests
// import it.
package timingtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// effectTime is how long every effect of the cases runs, at least.
const effectTime = 20 * time.Millisecond

// slow is an effect that takes effectTime.
func slow(context.Context) error {
	time.Sleep(effectTime)
	return nil
}

// want describes the event a case looks for.
type want struct {
	decision guard.Decision
	claim    bool // Claim > 0
	effect   bool // Effect ≥ effectTime; otherwise Effect == 0
}

// Run checks the timings of every decision that carries them on the store
// of h.
func Run(t *testing.T, h guardtest.Harness) {
	cases := []struct {
		name string
		run  func(ctx context.Context, b guardtest.Backend) error
		want want
	}{
		{name: "Do applied",
			run: func(ctx context.Context, b guardtest.Backend) error {
				_, err := b.Do(ctx, "timing", "k", nil, guardtest.Effect{Counter: "c", Delta: 1, Hook: slow})
				return err
			},
			want: want{decision: guard.DecisionApplied, claim: true, effect: true}},
		{name: "Do duplicate",
			run: func(ctx context.Context, b guardtest.Backend) error {
				if _, err := b.Do(ctx, "timing", "k", nil, guardtest.Effect{Counter: "c", Delta: 1}); err != nil {
					return err
				}
				_, err := b.Do(ctx, "timing", "k", nil, guardtest.Effect{Counter: "c", Delta: 1, Hook: slow})
				return err
			},
			want: want{decision: guard.DecisionDuplicate, claim: true}},
		{name: "Do in progress",
			run: func(ctx context.Context, b guardtest.Backend) error {
				if _, err := b.Store.Claim(ctx, "timing", "k", nil); err != nil {
					return err
				}
				_, err := b.Do(ctx, "timing", "k", nil, guardtest.Effect{Counter: "c", Delta: 1})
				return ignore(err, guard.ErrInProgress)
			},
			want: want{decision: guard.DecisionInProgress, claim: true}},
		{name: "Run applied",
			run: func(ctx context.Context, b guardtest.Backend) error {
				_, err := b.Store.Run(ctx, "timing", "k", nil, func(ctx context.Context, _ *guard.Lease) error { return slow(ctx) })
				return err
			},
			want: want{decision: guard.DecisionApplied, claim: true, effect: true}},
		{name: "Run duplicate",
			run: func(ctx context.Context, b guardtest.Backend) error {
				noop := func(context.Context, *guard.Lease) error { return nil }
				if _, err := b.Store.Run(ctx, "timing", "k", nil, noop); err != nil {
					return err
				}
				_, err := b.Store.Run(ctx, "timing", "k", nil, noop)
				return err
			},
			want: want{decision: guard.DecisionDuplicate, claim: true}},
		{name: "Run released",
			run: func(ctx context.Context, b guardtest.Backend) error {
				_, err := b.Store.Run(ctx, "timing", "k", nil, func(ctx context.Context, _ *guard.Lease) error {
					slow(ctx)
					return errors.New("provider down")
				})
				return ignore(err, nil)
			},
			want: want{decision: guard.DecisionReleased, claim: true, effect: true}},
		{name: "Claim then Fail",
			run: func(ctx context.Context, b guardtest.Backend) error {
				l, err := b.Store.Claim(ctx, "timing", "k", nil)
				if err != nil {
					return err
				}
				slow(ctx)
				return l.Fail(ctx, errors.New("refused by the provider"))
			},
			want: want{decision: guard.DecisionFailed, claim: true, effect: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := guardtest.NewRecorder()
			b := h.New(t, guard.WithObserver(rec))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := c.run(ctx, b); err != nil {
				t.Fatal(err)
			}
			events := rec.Find(c.want.decision, "")
			if len(events) != 1 {
				t.Fatalf("%d %s events, want 1: %+v", len(events), c.want.decision, rec.Events())
			}
			e := events[0]
			if (e.Claim > 0) != c.want.claim || e.Claim < 0 {
				t.Errorf("Claim = %v, want it measured: %v", e.Claim, c.want.claim)
			}
			if c.want.effect && e.Effect < effectTime || !c.want.effect && e.Effect != 0 {
				t.Errorf("Effect = %v, want at least %v: %v", e.Effect, effectTime, c.want.effect)
			}
			if e.Duration > 0 && e.Effect > e.Duration {
				t.Errorf("Effect %v longer than Duration %v", e.Effect, e.Duration)
			}
			// Every other event of the case carries no claim time of its own:
			// a claim is timed once.
			for _, o := range rec.Events() {
				if o.Claim > 0 && o.Decision != c.want.decision && o.Decision != guard.DecisionApplied && o.Decision != guard.DecisionDuplicate {
					t.Errorf("%s event also carries a claim time: %+v", o.Decision, o)
				}
			}
		})
	}
}

// ignore returns nil for an error wrapping target (any error for a nil
// target), and err otherwise.
func ignore(err, target error) error {
	if err != nil && (target == nil || errors.Is(err, target)) {
		return nil
	}
	return err
}
