package guardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// operatorCases test Inspect, Resolve and Forget.
var operatorCases = []testCase{
	{"Operators/inspect", func(t *testing.T, h Harness) {
		lease, retention := 5*time.Second, time.Hour
		e := setup(t, h, guard.WithLease(lease), guard.WithRetention(retention))
		o := order{ID: "o-inspect", SKU: "s", Qty: 3}
		if r, err := e.b.Store.Inspect(e.ctx, e.consumer, o.key()); err != nil || r != nil {
			t.Fatalf("Inspect of an absent key = %+v, %v; want nil, nil", r, err)
		}
		before := time.Now()
		e.mustDo(o.key(), o.fingerprint(), o.Qty, guard.Applied)
		after := time.Now()
		r := e.wantState(o.key(), guard.StateDone)
		const skew = 2 * time.Second // clock resolution and round trips
		switch {
		case r.Consumer != e.consumer || r.Key != o.key():
			t.Errorf("record names %q/%q, want %q/%q", r.Consumer, r.Key, e.consumer, o.key())
		case !bytes.Equal(r.Fingerprint, o.fingerprint()):
			t.Errorf("record fingerprint = %q, want %q", r.Fingerprint, o.fingerprint())
		case !r.LeaseUntil.IsZero():
			t.Errorf("done record has LeaseUntil %s, want zero", r.LeaseUntil)
		case len(r.Result) != 0:
			t.Errorf("done record of a Do has result %q, want none", r.Result)
		case r.CreatedAt.Before(before.Add(-skew)) || r.CreatedAt.After(after.Add(skew)):
			t.Errorf("CreatedAt = %s, want between %s and %s", r.CreatedAt, before, after)
		case absDuration(r.ExpiresAt.Sub(r.CreatedAt)-retention) > skew:
			t.Errorf("ExpiresAt - CreatedAt = %s, want the retention %s", r.ExpiresAt.Sub(r.CreatedAt), retention)
		}

		k := key("sms-inspect")
		before = time.Now()
		l := e.mustClaim(k, o.fingerprint())
		r = e.wantState(k, guard.StatePending)
		switch {
		case r.Owner != l.Owner():
			t.Errorf("pending record owner = %q, want %q", r.Owner, l.Owner())
		case r.LeaseUntil.Before(before.Add(lease-skew)) || r.LeaseUntil.After(time.Now().Add(lease+skew)):
			t.Errorf("pending record LeaseUntil = %s, want about %s from now", r.LeaseUntil, lease)
		case !bytes.Equal(r.Fingerprint, o.fingerprint()):
			t.Errorf("pending record fingerprint = %q, want %q", r.Fingerprint, o.fingerprint())
		}
		if err := l.Complete(e.ctx, []byte("result-1")); err != nil {
			t.Fatal(err)
		}
		r = e.wantState(k, guard.StateDone)
		if string(r.Result) != "result-1" || !r.LeaseUntil.IsZero() {
			t.Errorf("completed record: result %q, LeaseUntil %s; want result-1 and zero", r.Result, r.LeaseUntil)
		}
	}},
	{"Operators/inspect-after-retention-is-nil", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("inspect-expiring")
		e.mustDo(k, nil, 1, guard.Applied)
		e.wantState(k, guard.StateDone)
		e.expireRecord(k)
		e.wantState(k, "")
	}},
	{"Operators/resolve-uncertain-key", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		k := key("sms-resolve")
		e.mustClaim(k, nil)
		e.expireLease(k)
		_, err := e.claim(k, nil)
		wantErr(t, "Claim after an at-most-once lease expired", err, guard.ErrUncertain)
		if err := e.b.Store.Resolve(e.ctx, e.consumer, k, []byte("checked: sent")); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		e.mustDuplicate(k, nil, []byte("checked: sent"))
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.wantCount(0)
	}},
	{"Operators/resolve-failed-key", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-resolve")
		_, err := e.doHook(k, nil, 1, func(context.Context) error { return guard.Reject(errors.New("no stock")) })
		wantErr(t, "Do whose hook rejects", err, guard.ErrFailed)
		if err := e.b.Store.Resolve(e.ctx, e.consumer, k, nil); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.mustDuplicate(k, nil, nil)
		e.wantCount(0)
	}},
	{"Operators/resolve-fences-a-live-lease", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(5*time.Second))
		k := key("sms-resolve-live")
		l := e.mustClaim(k, nil)
		if err := e.b.Store.Resolve(e.ctx, e.consumer, k, []byte("operator")); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		wantErr(t, "Complete after an operator resolved the key", l.Complete(e.ctx, []byte("owner")), guard.ErrLeaseLost)
		e.mustDuplicate(k, nil, []byte("operator"))
	}},
	{"Operators/resolve-absent-key", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-resolve-absent")
		if err := e.b.Store.Resolve(e.ctx, e.consumer, k, []byte("sent by hand")); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		e.mustDuplicate(k, nil, []byte("sent by hand"))
	}},
	{"Operators/forget", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-forget")
		e.mustDo(k, nil, 2, guard.Applied)
		if err := e.b.Store.Forget(e.ctx, e.consumer, k); err != nil {
			t.Fatalf("Forget: %v", err)
		}
		e.wantState(k, "")
		e.mustDo(k, nil, 2, guard.Applied)
		e.wantCount(4)
		f := key("order-forget-failed")
		_, err := e.doHook(f, nil, 1, func(context.Context) error { return guard.Reject(errors.New("bad")) })
		wantErr(t, "Do whose hook rejects", err, guard.ErrFailed)
		if err := e.b.Store.Forget(e.ctx, e.consumer, f); err != nil {
			t.Fatalf("Forget: %v", err)
		}
		e.mustDo(f, nil, 1, guard.Applied)
		if err := e.b.Store.Forget(e.ctx, e.consumer, key("never-seen")); err != nil {
			t.Fatalf("Forget of an absent key: %v", err)
		}
	}},
	{"Operators/forget-fences-a-live-lease", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(5*time.Second))
		k := key("sms-forget-live")
		l := e.mustClaim(k, nil)
		if err := e.b.Store.Forget(e.ctx, e.consumer, k); err != nil {
			t.Fatalf("Forget: %v", err)
		}
		wantErr(t, "Complete after an operator forgot the key", l.Complete(e.ctx, nil), guard.ErrLeaseLost)
		e.mustClaim(k, nil)
	}},
}

// purgeCases test Purge: batches, live leases, and purges racing claims.
var purgeCases = []testCase{
	{"Purge/batches-and-keeps-a-live-lease", func(t *testing.T, h Harness) {
		const n, batch = 2500, 1000
		e := setup(t, h, guard.WithPurgeBatch(batch))
		var next atomic.Int64
		parallel(8, func(int) {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				out, err := e.do(key("purge", fmt.Sprint(i)), nil, 1)
				if err != nil || out != guard.Applied {
					t.Errorf("Do #%d = %s, want applied", i, describe(out, err))
					return
				}
			}
		})
		if t.Failed() {
			return
		}
		live := key("purge-live")
		l := e.mustClaim(live, nil)
		e.expireAll() // the retention of every record ran out; the lease did not
		_, err := e.claim(live, nil)
		wantInProgress(t, "Claim of a live lease past the retention", err, e.consumer, guard.DefaultLease)
		if r := e.wantState(live, guard.StatePending); r.Owner != l.Owner() {
			t.Errorf("live lease past the retention: owner %q, want %q", r.Owner, l.Owner())
		}
		e.rec.Reset()
		purged, err := e.b.Store.Purge(e.ctx)
		if err != nil {
			t.Fatalf("Purge: %v", err)
		}
		if h.TTLPurge {
			t.Logf("Purge of a TTL store deleted %d", purged)
		} else if purged != n {
			t.Fatalf("Purge deleted %d records, want the %d expired ones", purged, n)
		}
		ev := e.rec.Find(guard.DecisionPurged, "")
		if len(ev) != 1 || (!h.TTLPurge && ev[0].Count != n) {
			t.Errorf("observer purged events = %+v, want one with Count %d", ev, n)
		}
		for _, i := range []int{1, 999, 1000, 1001, 2500} {
			e.wantState(key("purge", fmt.Sprint(i)), "")
		}
		_, err = e.claim(live, nil)
		wantInProgress(t, "Claim of a live lease after Purge", err, e.consumer, guard.DefaultLease)
		if err := l.Complete(e.ctx, []byte("survived")); err != nil {
			t.Fatalf("Complete of the live lease after Purge: %v", err)
		}
		e.mustDuplicate(live, nil, []byte("survived"))
		if purged, err := e.b.Store.Purge(e.ctx); err != nil || purged != 0 {
			t.Fatalf("second Purge = %d, %v; want 0, nil", purged, err)
		}
		e.wantCount(n)
	}},
	{"Purge/racing-claims-apply-once-per-window", func(t *testing.T, h Harness) {
		// Each round starts with the retention of every record ended by the
		// store's clock; within a round none ends (the retention is far
		// longer than a round), so a key may apply once per round at most,
		// however the purges racing the claims fall.
		const keys, workers, rounds, callsPerRound = 40, 8, 5, 30
		e := setup(t, h, guard.WithPurgeBatch(10))
		var applied, total [keys]atomic.Int64
		var calls, purged atomic.Int64
		for round := range rounds {
			e.expireAll()
			for i := range applied {
				applied[i].Store(0)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					n, err := e.b.Store.Purge(e.ctx)
					if err != nil {
						t.Errorf("Purge racing claims: %v", err)
						return
					}
					purged.Add(n)
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond): // pacing, not a window: no answer depends on it
					}
				}
			})
			parallel(workers, func(int) {
				for range callsPerRound {
					i := rand.IntN(keys)
					out, err := e.b.Do(e.ctx, e.consumer, key("race", fmt.Sprint(i)), nil, Effect{Counter: fmt.Sprint("race-", i), Delta: 1})
					calls.Add(1)
					switch {
					case err != nil:
						t.Errorf("Do racing Purge: %v", err)
					case out == guard.Applied:
						applied[i].Add(1)
						total[i].Add(1)
					}
				}
			})
			close(stop)
			wg.Wait()
			for i := range keys {
				if n := applied[i].Load(); n > 1 {
					t.Errorf("round %d: key %d applied %d times, more than once per retention window", round, i, n)
				}
			}
			if t.Failed() {
				return
			}
		}
		for i := range keys {
			if got, want := e.countOf(fmt.Sprint("race-", i)), total[i].Load(); got != want {
				t.Errorf("key %d: counter %d, but %d Do calls said applied", i, got, want)
			}
		}
		if !h.TTLPurge && purged.Load() == 0 {
			t.Errorf("Purge racing claims deleted nothing in %d rounds", rounds)
		}
		t.Logf("%d Do calls, %d purged, in %d rounds", calls.Load(), purged.Load(), rounds)
	}},
}

// observerCases check that every decision reaches the Observer.
var observerCases = []testCase{
	{"Observer/decisions", func(t *testing.T, h Harness) {
		rec := NewRecorder()
		e := setup(t, h, guard.WithObserver(rec))
		amo := setup(t, h, guard.WithObserver(rec), guard.WithDelivery(guard.AtMostOnce))
		o := order{ID: "obs-1", SKU: "a", Qty: 1}
		e.mustDo(o.key(), o.fingerprint(), 1, guard.Applied)
		e.mustDo(o.key(), o.fingerprint(), 1, guard.Duplicate)
		_, err := e.do(o.key(), order{ID: "obs-1", SKU: "b"}.fingerprint(), 1)
		wantErr(t, "conflicting Do", err, guard.ErrKeyConflict)
		rejected := key("obs-rejected")
		_, err = e.doHook(rejected, nil, 1, func(context.Context) error { return guard.Reject(errors.New("no")) })
		wantErr(t, "rejected Do", err, guard.ErrFailed)

		taken, released, uncertain := key("obs-taken"), key("obs-released"), key("obs-uncertain")
		l1 := e.mustClaim(taken, nil)
		_, err = e.claim(taken, nil)
		wantErr(t, "Claim of a live lease", err, guard.ErrInProgress)
		amo.mustClaim(uncertain, nil)
		e.expireLease(taken)
		amo.expireLease(uncertain)
		l2 := e.mustClaim(taken, nil)
		wantErr(t, "stale Complete", l1.Complete(e.ctx, nil), guard.ErrLeaseLost)
		if err := l2.Complete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
		_, err = amo.claim(uncertain, nil)
		wantErr(t, "Claim of an expired at-most-once lease", err, guard.ErrUncertain)
		l3 := e.mustClaim(released, nil)
		if err := l3.Release(e.ctx); err != nil {
			t.Fatal(err)
		}
		e.expireAll()
		if _, err := e.b.Store.Purge(e.ctx); err != nil {
			t.Fatal(err)
		}

		want := []struct {
			d       guard.Decision
			key     string
			withErr bool
		}{
			{guard.DecisionApplied, o.key(), false},
			{guard.DecisionDuplicate, o.key(), false},
			{guard.DecisionConflict, o.key(), true},
			{guard.DecisionFailed, rejected, true},
			{guard.DecisionInProgress, taken, true},
			{guard.DecisionTakeover, taken, false},
			{guard.DecisionLeaseLost, taken, true},
			{guard.DecisionApplied, taken, false},
			{guard.DecisionUncertain, uncertain, true},
			{guard.DecisionReleased, released, false},
		}
		for _, w := range want {
			ev := rec.Find(w.d, w.key)
			if len(ev) == 0 {
				t.Errorf("observer saw no %s decision for %q; saw %s", w.d, w.key, summarize(rec.Events()))
				continue
			}
			if ev[0].Consumer != e.consumer {
				t.Errorf("%s event consumer = %q, want %q", w.d, ev[0].Consumer, e.consumer)
			}
			if w.withErr && ev[0].Err == nil {
				t.Errorf("%s event carries no error", w.d)
			}
		}
		if got := rec.Count(guard.DecisionApplied); got != 2 {
			t.Errorf("observer saw %d applied decisions, want 2 (one Do, one Complete)", got)
		}
		ev := rec.Find(guard.DecisionPurged, "")
		if len(ev) == 0 {
			t.Errorf("observer saw no purged decision")
		} else if !h.TTLPurge && ev[0].Count < 1 {
			t.Errorf("purged event Count = %d, want at least 1", ev[0].Count)
		}
	}},
}

func summarize(evs []guard.Event) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, fmt.Sprintf("%s(%q)", e.Decision, e.Key))
	}
	return strings.Join(parts, " ")
}

// inputCases test bad input: it gets a clear error, never a panic, and
// changes nothing.
var inputCases = []testCase{
	{"Input/empty-key-is-invalid-message", func(t *testing.T, h Harness) {
		e := setup(t, h)
		_, err := e.do("", nil, 1)
		wantErr(t, "Do with an empty key", err, guard.ErrInvalidMessage)
		_, err = e.claim("", nil)
		wantErr(t, "Claim with an empty key", err, guard.ErrInvalidMessage)
		_, err = e.b.Store.Run(e.ctx, e.consumer, "", nil, func(context.Context, *guard.Lease) error {
			t.Error("Run called apply for an empty key")
			return nil
		})
		wantErr(t, "Run with an empty key", err, guard.ErrInvalidMessage)
		_, err = e.b.Store.Inspect(e.ctx, e.consumer, "")
		wantErr(t, "Inspect with an empty key", err, guard.ErrInvalidMessage)
		wantErr(t, "Resolve with an empty key", e.b.Store.Resolve(e.ctx, e.consumer, "", nil), guard.ErrInvalidMessage)
		wantErr(t, "Forget with an empty key", e.b.Store.Forget(e.ctx, e.consumer, ""), guard.ErrInvalidMessage)
		e.wantCount(0)
	}},
	{"Input/bad-consumer-names-are-errors", func(t *testing.T, h Harness) {
		for _, c := range []struct{ consumer, why string }{
			{"", "empty consumer"},
			{"send\x00sms", "NUL"},
			{"send_sms\xff", "not valid UTF-8"},
			{strings.Repeat("c", 192), "longer than 191"},
		} {
			e := setup(t, h)
			e.consumer = c.consumer
			_, err := e.do(key("k"), nil, 1)
			wantMessage(t, fmt.Sprintf("Do with consumer %q", c.consumer), err, c.why)
			_, err = e.claim(key("k"), nil)
			wantMessage(t, fmt.Sprintf("Claim with consumer %q", c.consumer), err, c.why)
			e.wantCount(0)
		}
	}},
	{"Input/empty-consumer-is-an-error", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("k")
		e.consumer = ""
		if _, err := e.do(k, nil, 1); err == nil {
			t.Error("Do with an empty consumer: err = nil")
		}
		if _, err := e.claim(k, nil); err == nil {
			t.Error("Claim with an empty consumer: err = nil")
		}
		if _, err := e.b.Store.Run(e.ctx, "", k, nil, func(context.Context, *guard.Lease) error { return nil }); err == nil {
			t.Error("Run with an empty consumer: err = nil")
		}
		if _, err := e.b.Store.Inspect(e.ctx, "", k); err == nil {
			t.Error("Inspect with an empty consumer: err = nil")
		}
		if err := e.b.Store.Resolve(e.ctx, "", k, nil); err == nil {
			t.Error("Resolve with an empty consumer: err = nil")
		}
		if err := e.b.Store.Forget(e.ctx, "", k); err == nil {
			t.Error("Forget with an empty consumer: err = nil")
		}
		e.wantCount(0)
	}},
	{"Input/10KB-key", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key(strings.Repeat("0123456789", 1024))
		e.mustDo(k, nil, 1, guard.Applied)
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.wantCount(1)
		if r := e.wantState(k, guard.StateDone); r.Key != k {
			t.Errorf("Inspect of a 10 KB key returned a key of %d bytes, want %d", len(r.Key), len(k))
		}
		other := k[:len(k)-1] + "x" // differs only in its last byte
		e.mustDo(other, nil, 1, guard.Applied)
		e.consumer = "send_sms"
		l := e.mustClaim(k, nil)
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
		e.mustDuplicate(k, nil, nil)
	}},
	{"Input/cancelled-context", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("k-cancelled")
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		_, err := e.b.Do(ctx, e.consumer, k, nil, Effect{Counter: e.counter, Delta: 1})
		wantTransient(t, "Do with a cancelled context", err, nil)
		_, err = e.b.Store.Claim(ctx, e.consumer, k, nil)
		wantTransient(t, "Claim with a cancelled context", err, nil)
		_, err = e.b.Store.Run(ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error {
			t.Error("Run with a cancelled context called apply")
			return nil
		})
		wantTransient(t, "Run with a cancelled context", err, nil)
		if _, err := e.b.Store.Purge(ctx); err == nil {
			t.Error("Purge with a cancelled context: err = nil")
		}
		e.wantCount(0)
		e.wantState(k, "")
		e.mustDo(k, nil, 1, guard.Applied)
	}},
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
