package guardtest

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// claimCases test external effects through Claim and the Lease methods: the
// pending, done, failed and uncertain rows of the state table.
var claimCases = []testCase{
	{"Claim/fresh-key-acquires", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(5*time.Second))
		e.consumer = "send_sms"
		k := key("sms-1")
		before := time.Now()
		l := e.mustClaim(k, nil)
		switch {
		case l.TakenOver():
			t.Error("a fresh claim says TakenOver")
		case l.Consumer() != e.consumer || l.EncodedKey() != k:
			t.Errorf("lease names %q/%q, want %q/%q", l.Consumer(), l.EncodedKey(), e.consumer, k)
		case l.Key() != guard.ProviderKey(e.consumer, k) || len(l.Key()) != 64:
			t.Errorf("Lease.Key() = %q, want guard.ProviderKey = %q", l.Key(), guard.ProviderKey(e.consumer, k))
		case l.Owner() == "":
			t.Error("Lease.Owner() is empty")
		case !l.Until().After(before) || l.Until().After(time.Now().Add(5*time.Second)):
			t.Errorf("Lease.Until() = %s, want within the next 5s", l.Until())
		}
		r := e.wantState(k, guard.StatePending)
		if r.Owner != l.Owner() {
			t.Errorf("record owner = %q, want the lease's %q", r.Owner, l.Owner())
		}
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		e.wantState(k, guard.StateDone)
	}},
	{"Claim/live-lease-is-in-progress", func(t *testing.T, h Harness) {
		lease := 5 * time.Second
		e := setup(t, h, guard.WithLease(lease))
		k := key("sms-2")
		l := e.mustClaim(k, nil)
		_, err := e.claim(k, nil)
		wantInProgress(t, "second Claim of a live lease", err, e.consumer, lease)
		_, err = e.do(k, nil, 1)
		wantInProgress(t, "Do of a key with a live lease", err, e.consumer, lease)
		e.wantCount(0)
		called := false
		_, err = e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error { called = true; return nil })
		wantInProgress(t, "Run of a key with a live lease", err, e.consumer, lease)
		if called {
			t.Fatal("Run called apply on a key with another worker's live lease")
		}
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		e.mustDuplicate(k, nil, nil)
	}},
	{"Claim/complete-then-duplicate-with-result", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-3")
		l := e.mustClaim(k, nil)
		result := []byte(`{"provider_id":"SM123"}`)
		if err := l.Complete(e.ctx, result); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		for range 2 {
			e.mustDuplicate(k, nil, result)
		}
		out, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error {
			t.Error("Run called apply on a done key")
			return nil
		})
		if err != nil || out != guard.Duplicate {
			t.Fatalf("Run of a done key = %s, want duplicate", describe(out, err))
		}
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.wantCount(0)
		if r := e.wantState(k, guard.StateDone); string(r.Result) != string(result) {
			t.Fatalf("stored result = %q, want %q", r.Result, result)
		}
	}},
	{"Claim/different-fingerprint-on-done-and-pending-is-key-conflict", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(5*time.Second))
		a, b := order{ID: "o-1", SKU: "x", Qty: 1}, order{ID: "o-1", SKU: "y", Qty: 1}
		l := e.mustClaim(a.key(), a.fingerprint())
		_, err := e.claim(b.key(), b.fingerprint())
		wantErr(t, "Claim of a pending key with another fingerprint", err, guard.ErrKeyConflict)
		_, err = e.do(b.key(), b.fingerprint(), 1)
		wantErr(t, "Do of a pending key with another fingerprint", err, guard.ErrKeyConflict)
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		_, err = e.claim(b.key(), b.fingerprint())
		wantErr(t, "Claim of a done key with another fingerprint", err, guard.ErrKeyConflict)
		e.mustDuplicate(a.key(), a.fingerprint(), nil)
		e.wantCount(0)
	}},
	{"Claim/expired-lease-is-taken-over-and-the-stale-owner-is-fenced", func(t *testing.T, h Harness) {
		stale := []struct {
			op string
			fn func(ctx context.Context, l *guard.Lease) error
		}{
			{"Complete", func(ctx context.Context, l *guard.Lease) error { return l.Complete(ctx, []byte("stale")) }},
			{"Release", func(ctx context.Context, l *guard.Lease) error { return l.Release(ctx) }},
			{"Extend", func(ctx context.Context, l *guard.Lease) error { return l.Extend(ctx, time.Minute) }},
			{"Fail", func(ctx context.Context, l *guard.Lease) error { return l.Fail(ctx, errHook) }},
		}
		e := setup(t, h)
		e.consumer = "send_sms"
		var old []*guard.Lease
		for _, s := range stale {
			old = append(old, e.mustClaim(key("sms", s.op), nil))
			e.expireLease(key("sms", s.op))
		}
		for i, s := range stale {
			k := key("sms", s.op)
			l2 := e.mustClaim(k, nil)
			if !l2.TakenOver() {
				t.Errorf("%s: claim of an expired lease: TakenOver() = false", s.op)
			}
			if l2.Owner() == old[i].Owner() {
				t.Errorf("%s: the new owner has the old owner's token", s.op)
			}
			if l2.Key() != old[i].Key() {
				t.Errorf("%s: provider key changed on takeover: %q vs %q", s.op, l2.Key(), old[i].Key())
			}
			wantErr(t, "stale owner's "+s.op, s.fn(e.ctx, old[i]), guard.ErrLeaseLost)
			r := e.wantState(k, guard.StatePending)
			if r.Owner != l2.Owner() {
				t.Errorf("%s: record owner = %q after the stale owner's call, want the new owner %q", s.op, r.Owner, l2.Owner())
			}
			if err := l2.Complete(e.ctx, []byte("new")); err != nil {
				t.Fatalf("%s: new owner's Complete: %v", s.op, err)
			}
			e.mustDuplicate(k, nil, []byte("new"))
		}
		if n := len(e.rec.Find(guard.DecisionTakeover, "")); n != len(stale) {
			t.Errorf("observer saw %d takeovers, want %d", n, len(stale))
		}
		if n := len(e.rec.Find(guard.DecisionLeaseLost, "")); n != len(stale) {
			t.Errorf("observer saw %d lease_lost, want %d", n, len(stale))
		}
	}},
	{"Claim/expired-lease-not-taken-can-still-complete", func(t *testing.T, h Harness) {
		for _, d := range []guard.Delivery{guard.AtLeastOnce, guard.AtMostOnce} {
			e := setup(t, h, guard.WithDelivery(d))
			k := key("sms-slow")
			l := e.mustClaim(k, nil)
			e.expireLease(k)
			if err := l.Complete(e.ctx, []byte("late")); err != nil {
				t.Fatalf("%s: Complete of an expired lease nobody took: %v", d, err)
			}
			e.mustDuplicate(k, nil, []byte("late"))
		}
	}},
	{"Claim/expired-lease-at-most-once-is-uncertain", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		k := key("sms-amo")
		e.mustClaim(k, nil) // abandoned: the worker crashed mid-effect
		e.expireLease(k)
		for i := range 3 {
			_, err := e.claim(k, nil)
			wantErr(t, "Claim after an at-most-once lease expired", err, guard.ErrUncertain)
			if i == 0 {
				e.wantState(k, guard.StateUncertain)
			}
		}
		_, err := e.do(k, nil, 1)
		wantErr(t, "Do of an uncertain key", err, guard.ErrUncertain)
		e.wantCount(0)
		if len(e.rec.Find(guard.DecisionUncertain, k)) == 0 {
			t.Error("observer saw no uncertain decision")
		}
	}},
	{"Claim/stale-at-most-once-owner-may-settle-its-uncertain-key", func(t *testing.T, h Harness) {
		// The owner whose at-most-once lease expired still holds the token:
		// it knows whether its call happened, so its Complete settles the key.
		e := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		k := key("sms-amo-late")
		l := e.mustClaim(k, nil)
		e.expireLease(k)
		_, err := e.claim(k, nil)
		wantErr(t, "Claim after an at-most-once lease expired", err, guard.ErrUncertain)
		if err := l.Complete(e.ctx, []byte("sent")); err != nil {
			t.Fatalf("the late owner's Complete of its uncertain key: %v", err)
		}
		e.mustDuplicate(k, nil, []byte("sent"))
	}},
	{"Claim/do-over-an-abandoned-lease", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("mixed")
		old := e.mustClaim(k, nil)
		e.expireLease(k)
		e.mustDo(k, nil, 1, guard.Applied)
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.wantCount(1)
		wantErr(t, "abandoned owner's Complete after a Do took the key", old.Complete(e.ctx, nil), guard.ErrLeaseLost)

		m := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		m.mustClaim(k, nil)
		m.expireLease(k)
		_, err := m.do(k, nil, 1)
		wantErr(t, "at-most-once Do over an abandoned lease", err, guard.ErrUncertain)
		m.wantCount(0)
		m.wantState(k, guard.StateUncertain)
	}},
	{"Claim/fail-keeps-key-failed", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-bad-number")
		l := e.mustClaim(k, nil)
		reason := errors.New("provider: 21211 invalid 'To' phone number")
		if err := l.Fail(e.ctx, reason); err != nil {
			t.Fatalf("Fail: %v", err)
		}
		for range 2 {
			_, err := e.claim(k, nil)
			wantErr(t, "Claim of a failed key", err, guard.ErrFailed)
			wantMessage(t, "Claim of a failed key", err, reason.Error())
		}
		_, err := e.do(k, nil, 1)
		wantErr(t, "Do of a failed key", err, guard.ErrFailed)
		if r := e.wantState(k, guard.StateFailed); string(r.Result) != reason.Error() {
			t.Fatalf("failed record's reason = %q, want %q", r.Result, reason.Error())
		}
	}},
	{"Claim/release-lets-the-next-claim-acquire", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(5*time.Second))
		k := key("sms-released")
		l := e.mustClaim(k, nil)
		if err := l.Release(e.ctx); err != nil {
			t.Fatalf("Release: %v", err)
		}
		e.wantState(k, "")
		l2 := e.mustClaim(k, nil)
		if l2.TakenOver() {
			t.Error("claim after a release says TakenOver")
		}
		if err := l2.Complete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}},
	{"Claim/extend-keeps-others-out", func(t *testing.T, h Harness) {
		lease := 5 * time.Second
		e := setup(t, h, guard.WithLease(lease))
		k := key("sms-long")
		l := e.mustClaim(k, nil)
		ext := 10 * time.Minute
		if err := l.Extend(e.ctx, ext); err != nil {
			t.Fatalf("Extend: %v", err)
		}
		_, err := e.claim(k, nil)
		wantInProgress(t, "Claim of an extended lease", err, e.consumer, ext)
		var ip *guard.InProgressError
		errors.As(err, &ip)
		if ip.RetryAfter <= lease {
			t.Errorf("RetryAfter = %s after extending to %s, want more than the original %s: the lease's end did not move", ip.RetryAfter, ext, lease)
		}
		if r := e.wantState(k, guard.StatePending); r.LeaseUntil.Sub(r.CreatedAt) <= lease {
			t.Errorf("stored lease ends %s after the claim, want the extension's %s", r.LeaseUntil.Sub(r.CreatedAt), ext)
		}
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatalf("Complete after Extend: %v", err)
		}
		e.mustDuplicate(k, nil, nil)
	}},
	{"Claim/extend-is-bounded-by-the-maximum-hold", func(t *testing.T, h Harness) {
		lease, hold := 5*time.Second, 2*time.Minute
		e := setup(t, h, guard.WithLease(lease), guard.WithMaxLeaseHold(hold))
		k := key("sms-stuck")
		l := e.mustClaim(k, nil)
		if err := l.Extend(e.ctx, time.Minute); err != nil {
			t.Fatalf("Extend within the maximum hold: %v", err)
		}
		before := e.wantState(k, guard.StatePending).LeaseUntil
		// The lease was claimed a moment ago: an extension by the whole
		// maximum hold ends past it, and so does any longer one.
		for _, d := range []time.Duration{hold, 10 * hold, time.Duration(math.MaxInt64)} {
			err := l.Extend(e.ctx, d)
			wantTransient(t, "Extend past the maximum hold", err, guard.ErrLeaseHoldExceeded)
			wantMessage(t, "Extend past the maximum hold", err, e.consumer)
			wantMessage(t, "Extend past the maximum hold", err, hold.String())
		}
		if r := e.wantState(k, guard.StatePending); !r.LeaseUntil.Equal(before) || r.Owner != l.Owner() {
			t.Errorf("a refused Extend changed the record: lease until %s (was %s), owner %q", r.LeaseUntil, before, r.Owner)
		}
		if err := l.Complete(e.ctx, []byte("done in time")); err != nil {
			t.Fatalf("Complete after a refused Extend: %v", err)
		}
		e.mustDuplicate(k, nil, []byte("done in time"))

		// Without WithMaxLeaseHold the bound is DefaultMaxLeaseHold.
		d := setup(t, h)
		l = d.mustClaim(k, nil)
		wantTransient(t, "Extend by the default maximum hold", l.Extend(d.ctx, guard.DefaultMaxLeaseHold), guard.ErrLeaseHoldExceeded)
		if err := l.Extend(d.ctx, guard.DefaultMaxLeaseHold/2); err != nil {
			t.Fatalf("Extend within the default maximum hold: %v", err)
		}
	}},
	{"Claim/expired-record-acquires-afresh", func(t *testing.T, h Harness) {
		for _, d := range []guard.Delivery{guard.AtLeastOnce, guard.AtMostOnce} {
			e := setup(t, h, guard.WithDelivery(d))
			done, abandoned := key("sms-done"), key("sms-abandoned")
			l := e.mustClaim(done, nil)
			if err := l.Complete(e.ctx, []byte("r")); err != nil {
				t.Fatal(err)
			}
			e.mustClaim(abandoned, nil)
			e.expireRecord(done)
			e.expireLease(abandoned) // the lease, then the retention, ran out
			e.expireRecord(abandoned)
			for _, k := range []string{done, abandoned} {
				e.wantState(k, "")
				l := e.mustClaim(k, nil)
				if l.TakenOver() {
					t.Errorf("%s: claim of an expired record says TakenOver", d)
				}
				if l.Result() != nil {
					t.Errorf("%s: fresh lease carries the expired record's result %q", d, l.Result())
				}
				if err := l.Complete(e.ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}},
	{"Lease/methods-need-a-held-lease", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-lease-methods")
		l := e.mustClaim(k, nil)
		for _, d := range []time.Duration{0, -time.Second, guard.MinLease - time.Nanosecond} {
			if err := l.Extend(e.ctx, d); err == nil || !strings.Contains(err.Error(), "below the minimum") {
				t.Errorf("Extend(%s) = %v, want an error about the minimum", d, err)
			}
		}
		if err := l.Complete(e.ctx, []byte("r")); err != nil {
			t.Fatal(err)
		}
		dup := e.mustDuplicate(k, nil, []byte("r"))
		for _, l := range []*guard.Lease{l, dup} {
			what := "completed lease"
			if l == dup {
				what = "duplicate lease"
			}
			if err := l.Complete(e.ctx, []byte("again")); err == nil {
				t.Errorf("Complete of a %s = nil, want an error", what)
			}
			if err := l.Release(e.ctx); err == nil {
				t.Errorf("Release of a %s = nil, want an error", what)
			}
			if err := l.Fail(e.ctx, errHook); err == nil {
				t.Errorf("Fail of a %s = nil, want an error", what)
			}
			if err := l.Extend(e.ctx, time.Second); err == nil {
				t.Errorf("Extend of a %s = nil, want an error", what)
			}
		}
		e.mustDuplicate(k, nil, []byte("r"))

		r := key("sms-released")
		rl := e.mustClaim(r, nil)
		if err := rl.Release(e.ctx); err != nil {
			t.Fatal(err)
		}
		if err := rl.Complete(e.ctx, nil); err == nil {
			t.Error("Complete of a released lease = nil, want an error")
		}
		e.wantState(r, "")
	}},
}

// runCases test Store.Run and its on_error and delivery rules.
var runCases = []testCase{
	{"Run/applied-with-result", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-run")
		calls := 0
		apply := func(ctx context.Context, l *guard.Lease) error {
			calls++
			if l.Outcome() != guard.Applied || l.EncodedKey() != k {
				t.Errorf("apply got lease %v/%q", l.Outcome(), l.EncodedKey())
			}
			l.SetResult([]byte("SM-" + l.Key()[:8]))
			return nil
		}
		out, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, apply)
		if err != nil || out != guard.Applied {
			t.Fatalf("Run = %s, want applied", describe(out, err))
		}
		want := []byte("SM-" + guard.ProviderKey(e.consumer, k)[:8])
		e.mustDuplicate(k, nil, want)
		out, err = e.b.Store.Run(e.ctx, e.consumer, k, nil, apply)
		if err != nil || out != guard.Duplicate {
			t.Fatalf("second Run = %s, want duplicate", describe(out, err))
		}
		if calls != 1 {
			t.Fatalf("apply ran %d times, want 1", calls)
		}
	}},
	{"Run/records-the-effect-when-the-caller-gave-up", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-caller-gone")
		ctx, cancel := context.WithCancel(e.ctx)
		out, err := e.b.Store.Run(ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error {
			cancel() // the caller's deadline passed while the provider answered
			return nil
		})
		if err != nil || out != guard.Applied {
			t.Fatalf("Run whose context ended after the effect = %s, want applied", describe(out, err))
		}
		e.mustDuplicate(k, nil, nil)
	}},
	{"Run/error-with-on-error-release", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("sms-timeout")
		_, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error { return errHook })
		wantTransient(t, "Run whose apply fails (release)", err, errHook)
		e.wantState(k, "")
		if n := len(e.rec.Find(guard.DecisionReleased, k)); n != 1 {
			t.Errorf("observer saw %d released decisions, want 1", n)
		}
		l := e.mustClaim(k, nil)
		if l.TakenOver() {
			t.Error("claim after a released error says TakenOver")
		}
	}},
	{"Run/error-with-on-error-keep", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithOnError(guard.Keep))
		k := key("sms-keep")
		_, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error { return errHook })
		wantErr(t, "Run whose apply fails (keep)", err, guard.ErrFailed)
		if !errors.Is(err, errHook) {
			t.Errorf("Run (keep) error %v does not wrap apply's error", err)
		}
		_, err = e.claim(k, nil)
		wantErr(t, "Claim of a kept key", err, guard.ErrFailed)
		wantMessage(t, "Claim of a kept key", err, errHook.Error())
		e.wantState(k, guard.StateFailed)
	}},
	{"Run/at-most-once-error-is-uncertain", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		k := key("sms-amo-error")
		_, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error { return errHook })
		wantErr(t, "at-most-once Run whose apply fails", err, guard.ErrUncertain)
		for range 2 {
			_, err = e.claim(k, nil)
			wantErr(t, "Claim of an uncertain key", err, guard.ErrUncertain)
		}
		e.wantState(k, guard.StateUncertain)
	}},
	{"Run/at-most-once-not-performed-releases", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithDelivery(guard.AtMostOnce))
		k := key("sms-amo-refused")
		_, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error {
			return guard.NotPerformed(errHook)
		})
		wantTransient(t, "at-most-once Run whose call certainly did not happen", err, errHook)
		e.wantState(k, "")
		out, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error { return nil })
		if err != nil || out != guard.Applied {
			t.Fatalf("Run after a NotPerformed release = %s, want applied", describe(out, err))
		}
	}},
	{"Run/reject-fails", func(t *testing.T, h Harness) {
		e := setup(t, h) // at-least-once, release: Reject still keeps the key failed
		k := key("sms-rejected")
		_, err := e.b.Store.Run(e.ctx, e.consumer, k, nil, func(context.Context, *guard.Lease) error {
			return guard.Reject(errors.New("user opted out"))
		})
		wantErr(t, "Run whose apply rejects", err, guard.ErrFailed)
		_, err = e.claim(k, nil)
		wantErr(t, "Claim of a rejected key", err, guard.ErrFailed)
		wantMessage(t, "Claim of a rejected key", err, "user opted out")
	}},
}
