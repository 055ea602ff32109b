package guardtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemkit/idem/guard"
)

// RunBatch runs the batch conformance suite against the store of h: DoBatch
// (Backend.DoBatch), ClaimBatch and RunBatch, through the public API. Every
// message of a batch must get the answer Do, Claim or Run would give it
// alone, in order; a failing or rejected effect must not undo the others;
// a key twice in one batch is claimed once.
func RunBatch(t *testing.T, h Harness) {
	if h.New == nil {
		t.Fatal("guardtest: Harness.New is nil")
	}
	for _, c := range batchCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, h)
		})
	}
}

// bm is a message of a DoBatch adding delta to the env's counter.
func (e *env) bm(k string, fp []byte, delta int64) BatchEffect {
	return BatchEffect{Consumer: e.consumer, Key: k, Fingerprint: fp, Effect: Effect{Counter: e.counter, Delta: delta}}
}

// bmHook is bm with a hook.
func (e *env) bmHook(k string, fp []byte, delta int64, hook func(context.Context) error) BatchEffect {
	m := e.bm(k, fp, delta)
	m.Effect.Hook = hook
	return m
}

func (e *env) doBatch(msgs ...BatchEffect) []guard.Result {
	e.t.Helper()
	res := e.b.DoBatch(e.ctx, msgs)
	if len(res) != len(msgs) {
		e.t.Fatalf("DoBatch of %d messages returned %d results", len(msgs), len(res))
	}
	return res
}

// wantResult checks one result of a batch: an outcome (err nil) or an error
// sentinel.
func wantResult(t testing.TB, what string, r guard.Result, out guard.Outcome, sentinel error) {
	t.Helper()
	if sentinel != nil {
		wantErr(t, what, r.Err, sentinel)
		return
	}
	if r.Err != nil || r.Outcome != out {
		t.Fatalf("%s: %s, want %v", what, describe(r.Outcome, r.Err), out)
	}
}

// keys returns n keys with prefix.
func keys(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = key(prefix, fmt.Sprint(i))
	}
	return out
}

var batchCases = []testCase{
	{"DoBatch/empty", func(t *testing.T, h Harness) {
		e := setup(t, h)
		if res := e.doBatch(); len(res) != 0 {
			t.Fatalf("DoBatch() = %v, want no results", res)
		}
	}},
	{"DoBatch/applied-then-duplicate", func(t *testing.T, h Harness) {
		e := setup(t, h)
		ks := keys("b", 25)
		var msgs []BatchEffect
		for _, k := range ks {
			msgs = append(msgs, e.bm(k, nil, 2))
		}
		for i, r := range e.doBatch(msgs...) {
			wantResult(t, fmt.Sprintf("first batch, message %d", i), r, guard.Applied, nil)
		}
		e.wantCount(50)
		for i, r := range e.doBatch(msgs...) {
			wantResult(t, fmt.Sprintf("second batch, message %d", i), r, guard.Duplicate, nil)
		}
		e.wantCount(50)
		for _, k := range ks {
			e.wantState(k, guard.StateDone)
		}
		if n := e.rec.Count(guard.DecisionApplied); n != 25 {
			t.Errorf("%d applied decisions, want 25", n)
		}
		if n := e.rec.Count(guard.DecisionDuplicate); n != 25 {
			t.Errorf("%d duplicate decisions, want 25", n)
		}
		for _, ev := range e.rec.Find(guard.DecisionApplied, "") {
			if ev.Claim <= 0 || ev.Effect <= 0 {
				t.Errorf("applied event of %s: claim %s, effect %s; want both measured", ev.Key, ev.Claim, ev.Effect)
				break
			}
		}
	}},
	{"DoBatch/each-message-answered-as-alone", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(faultLease))
		done, conflict, failed, held, expired, abandoned, fresh := key("done"), key("conflict"), key("failed"), key("held"), key("expired"), key("abandoned"), key("fresh")
		fpA, fpB := order{ID: "x", SKU: "a", Qty: 1}.fingerprint(), order{ID: "x", SKU: "b", Qty: 1}.fingerprint()
		e.mustDo(done, fpA, 1, guard.Applied)
		e.mustDo(conflict, fpA, 1, guard.Applied)
		_, err := e.doHook(failed, nil, 1, func(context.Context) error { return guard.Reject(errors.New("no stock")) })
		wantErr(t, "rejected Do", err, guard.ErrFailed)
		e.mustClaim(held, nil)
		e.mustDo(expired, nil, 1, guard.Applied)
		e.expireRecord(expired)
		e.mustClaim(abandoned, nil)
		e.expireLease(abandoned)
		e.wantCount(3)
		res := e.doBatch(e.bm(done, fpA, 10), e.bm(conflict, fpB, 10), e.bm(failed, nil, 10), e.bm(held, nil, 10),
			e.bm(expired, nil, 10), e.bm(abandoned, nil, 10), e.bm(fresh, nil, 10))
		wantResult(t, "done key", res[0], guard.Duplicate, nil)
		wantResult(t, "key with another fingerprint", res[1], 0, guard.ErrKeyConflict)
		wantResult(t, "failed key", res[2], 0, guard.ErrFailed)
		wantMessage(t, "failed key", res[2].Err, "no stock")
		wantInProgress(t, "key under a live lease", res[3].Err, e.consumer, faultLease)
		wantResult(t, "expired key", res[4], guard.Applied, nil)
		wantResult(t, "key of an abandoned lease", res[5], guard.Applied, nil)
		wantResult(t, "fresh key", res[6], guard.Applied, nil)
		e.wantCount(33)
		for _, k := range []string{expired, abandoned, fresh} {
			e.wantState(k, guard.StateDone)
		}
	}},
	{"DoBatch/same-key-twice-in-a-batch", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k, j := key("twice"), key("thrice")
		fpA, fpB := order{ID: "x", SKU: "a", Qty: 1}.fingerprint(), order{ID: "x", SKU: "b", Qty: 1}.fingerprint()
		e.mustDo(j, fpA, 1, guard.Applied)
		res := e.doBatch(e.bm(k, fpA, 5), e.bm(k, fpA, 5), e.bm(k, fpB, 5), e.bm(j, fpA, 5), e.bm(j, fpB, 5), e.bm(k, nil, 5))
		wantResult(t, "first copy", res[0], guard.Applied, nil)
		wantResult(t, "second copy, same fingerprint", res[1], guard.Duplicate, nil)
		wantResult(t, "third copy, another fingerprint", res[2], 0, guard.ErrKeyConflict)
		wantResult(t, "copy of a done key", res[3], guard.Duplicate, nil)
		wantResult(t, "copy of a done key, another fingerprint", res[4], 0, guard.ErrKeyConflict)
		wantResult(t, "copy without a fingerprint", res[5], guard.Duplicate, nil)
		e.wantCount(6)
	}},
	{"DoBatch/reject-does-not-undo-the-others", func(t *testing.T, h Harness) {
		e := setup(t, h)
		a, b, c := key("a"), key("b"), key("c")
		calls := map[string]int{}
		count := func(k string) func(context.Context) error {
			return func(context.Context) error { calls[k]++; return nil }
		}
		res := e.doBatch(e.bmHook(a, nil, 1, count(a)),
			e.bmHook(b, nil, 10, func(context.Context) error { calls[b]++; return guard.Reject(errors.New("out of stock")) }),
			e.bmHook(c, nil, 100, count(c)), e.bm(b, nil, 1000))
		wantResult(t, "before the rejected one", res[0], guard.Applied, nil)
		wantResult(t, "rejected", res[1], 0, guard.ErrFailed)
		wantMessage(t, "rejected", res[1].Err, "out of stock")
		wantResult(t, "after the rejected one", res[2], guard.Applied, nil)
		wantResult(t, "copy of the rejected key", res[3], 0, guard.ErrFailed)
		e.wantCount(101)
		e.wantState(a, guard.StateDone)
		e.wantState(c, guard.StateDone)
		if r := e.wantState(b, guard.StateFailed); !strings.Contains(string(r.Result), "out of stock") {
			t.Errorf("failed record's reason = %q, want the rejection", r.Result)
		}
		if calls[b] != 1 {
			t.Errorf("the rejected effect ran %d times, want once", calls[b])
		}
		_, err := e.do(b, nil, 1)
		wantErr(t, "redelivery of the rejected key", err, guard.ErrFailed)
		if n := len(e.rec.Find(guard.DecisionFailed, b)); n != 3 {
			t.Errorf("%d failed decisions for the rejected key, want 3 (the batch's two copies, the redelivery)", n)
		}
	}},
	{"DoBatch/failed-effect-does-not-undo-the-others", func(t *testing.T, h Harness) {
		e := setup(t, h)
		a, b, c := key("a"), key("b"), key("c")
		res := e.doBatch(e.bm(a, nil, 1), e.bmHook(b, nil, 10, func(context.Context) error { return errHook }), e.bm(c, nil, 100), e.bm(b, nil, 1))
		wantResult(t, "before the failed one", res[0], guard.Applied, nil)
		wantTransient(t, "failed effect", res[1].Err, errHook)
		wantResult(t, "after the failed one", res[2], guard.Applied, nil)
		wantTransient(t, "copy of the failed key", res[3].Err, errHook)
		e.wantCount(101)
		e.wantState(b, "")
		e.mustDo(b, nil, 10, guard.Applied)
		e.wantCount(111)
	}},
	{"DoBatch/invalid-messages-answered-alone", func(t *testing.T, h Harness) {
		e := setup(t, h)
		ok := key("ok")
		long := strings.Repeat("k", guard.MaxKeyLen+1)
		bad := BatchEffect{Consumer: "", Key: ok, Effect: Effect{Counter: e.counter, Delta: 1000}}
		res := e.doBatch(e.bm("", nil, 1000), e.bm(ok, nil, 1), e.bm(long, nil, 1000), bad)
		wantResult(t, "empty key", res[0], 0, guard.ErrInvalidMessage)
		wantResult(t, "valid key", res[1], guard.Applied, nil)
		wantResult(t, "key too long", res[2], 0, guard.ErrInvalidMessage)
		if res[3].Err == nil {
			t.Fatalf("message without a consumer: %s, want an error", describe(res[3].Outcome, res[3].Err))
		}
		e.wantCount(1)
	}},
	{"DoBatch/key-identity", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity("v1 key=order_id"))
		e.mustDo(key("first"), nil, 1, guard.Applied)
		other := e.clone(guard.WithKeyIdentity("v2 key=order_id,line"))
		res := other.doBatch(other.bm(key("a"), nil, 10), other.bm(key("b"), nil, 10))
		for i, r := range res {
			if !errors.Is(r.Err, guard.ErrKeyIdentityChanged) || guard.Permanent(r.Err) {
				t.Fatalf("message %d under a changed key identity: %s, want ErrKeyIdentityChanged (not permanent)", i, describe(r.Outcome, r.Err))
			}
		}
		e.wantCount(1)
		same := e.clone()
		for i, r := range same.doBatch(same.bm(key("a"), nil, 10)) {
			wantResult(t, fmt.Sprintf("message %d under the recorded identity", i), r, guard.Applied, nil)
		}
		e.wantCount(11)
	}},
	{"DoBatch/crash-rolls-back-the-whole-batch", func(t *testing.T, h Harness) {
		e := setup(t, h)
		ks := keys("crash", 5)
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		var msgs []BatchEffect
		for i, k := range ks {
			m := e.bm(k, nil, 1)
			if i == 3 {
				m.Effect.Hook = func(context.Context) error { cancel(); return nil }
			}
			msgs = append(msgs, m)
		}
		res := e.b.DoBatch(ctx, msgs)
		for i, r := range res {
			if r.Err == nil && r.Outcome == guard.Applied {
				// A store may commit what it sent before it saw the context
				// end; then every message must be applied.
				t.Logf("message %d applied although the batch's context ended in the effect of message 3", i)
			}
		}
		got := e.count()
		if got != 0 && got != 5 {
			t.Fatalf("counter %d after a batch cut short: want all (5) or nothing (0)", got)
		}
		for i, r := range e.doBatch(msgs[0], msgs[1], msgs[2], e.bm(ks[3], nil, 1), msgs[4]) {
			want := guard.Applied
			if got == 5 {
				want = guard.Duplicate
			}
			wantResult(t, fmt.Sprintf("redelivery of message %d", i), r, want, nil)
		}
		e.wantCount(5)
	}},
	{"DoBatch/longer-than-MaxBatchLen", func(t *testing.T, h Harness) {
		e := setup(t, h)
		n := guard.MaxBatchLen + 3
		msgs := make([]BatchEffect, n)
		for i, k := range keys("long", n) {
			msgs[i] = e.bm(k, nil, 1)
		}
		msgs[n-1] = msgs[0] // a copy across the split
		for i, r := range e.doBatch(msgs...) {
			want := guard.Applied
			if i == n-1 {
				want = guard.Duplicate
			}
			wantResult(t, fmt.Sprintf("message %d", i), r, want, nil)
		}
		e.wantCount(int64(n - 1))
	}},
	{"DoBatch/concurrent-batches-overlap", func(t *testing.T, h Harness) {
		e := setup(t, h)
		ks := keys("overlap", 40)
		const workers = 4
		results := make([][]guard.Result, workers)
		parallel(workers, func(w int) {
			var msgs []BatchEffect
			for i := range ks { // every worker sends every key, in its own order
				msgs = append(msgs, e.bm(ks[(i*(w+1)+w)%len(ks)], nil, 1))
			}
			results[w] = e.b.DoBatch(e.ctx, msgs)
		})
		applied := 0
		for w, res := range results {
			for i, r := range res {
				switch {
				case r.Err != nil:
					t.Fatalf("worker %d, message %d: %v", w, i, r.Err)
				case r.Outcome == guard.Applied:
					applied++
				}
			}
		}
		if applied != len(ks) {
			t.Errorf("%d applied answers for %d keys sent by %d workers, want one per key", applied, len(ks), workers)
		}
		e.wantCount(int64(len(ks)))
	}},
	{"ClaimBatch/leases-and-duplicates", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(faultLease))
		done, held, fresh := key("done"), key("held"), key("fresh")
		fpA, fpB := order{ID: "x", SKU: "a", Qty: 1}.fingerprint(), order{ID: "x", SKU: "b", Qty: 1}.fingerprint()
		if err := e.mustClaim(done, fpA).Complete(e.ctx, []byte("sent")); err != nil {
			t.Fatal(err)
		}
		e.mustClaim(held, nil)
		m := func(k string, fp []byte) guard.Message {
			return guard.Message{Consumer: e.consumer, Key: k, Fingerprint: fp}
		}
		msgs := []guard.Message{m(done, fpA), m(held, nil), m(fresh, fpA), m(fresh, fpA), m(fresh, fpB), m("", nil)}
		res := e.b.Store.ClaimBatch(e.ctx, msgs)
		if len(res) != len(msgs) {
			t.Fatalf("ClaimBatch of %d messages returned %d answers", len(msgs), len(res))
		}
		if res[0].Err != nil || res[0].Lease.Outcome() != guard.Duplicate || string(res[0].Lease.Result()) != "sent" {
			t.Fatalf("done key: %+v, want a duplicate lease with the stored result", res[0])
		}
		wantInProgress(t, "key under a live lease", res[1].Err, e.consumer, faultLease)
		if res[2].Err != nil || res[2].Lease.Outcome() != guard.Applied {
			t.Fatalf("fresh key: %+v, want a held lease", res[2])
		}
		wantInProgress(t, "second copy of a key the batch holds", res[3].Err, e.consumer, faultLease)
		wantErr(t, "copy with another fingerprint", res[4].Err, guard.ErrKeyConflict)
		wantErr(t, "empty key", res[5].Err, guard.ErrInvalidMessage)
		e.wantState(fresh, guard.StatePending)
		if err := res[2].Lease.Complete(e.ctx, []byte("ok")); err != nil {
			t.Fatalf("Complete of a batch's lease: %v", err)
		}
		e.mustDuplicate(fresh, fpA, []byte("ok"))
	}},
	{"RunBatch/outcomes-by-the-rules-of-Run", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithLease(faultLease))
		ok, rejected, failing, dup := key("ok"), key("rejected"), key("failing"), key("dup")
		e.mustClaim(dup, nil).Complete(e.ctx, nil)
		sent := map[string]int{}
		send := func(k string, err error) func(context.Context, *guard.Lease) error {
			return func(_ context.Context, l *guard.Lease) error {
				sent[k]++
				l.SetResult([]byte("r-" + k))
				return err
			}
		}
		msgs := []guard.LeaseMessage{
			{Consumer: e.consumer, Key: ok, Apply: send(ok, nil)},
			{Consumer: e.consumer, Key: rejected, Apply: send(rejected, guard.Reject(errors.New("bad number")))},
			{Consumer: e.consumer, Key: failing, Apply: send(failing, errHook)},
			{Consumer: e.consumer, Key: dup, Apply: send(dup, nil)},
			{Consumer: e.consumer, Key: ok, Apply: send(ok, nil)},
			{Consumer: e.consumer, Key: failing, Apply: send(failing, nil)},
		}
		res := e.b.Store.RunBatch(e.ctx, msgs)
		if len(res) != len(msgs) {
			t.Fatalf("RunBatch of %d messages returned %d results", len(msgs), len(res))
		}
		wantResult(t, "effect that succeeds", res[0], guard.Applied, nil)
		wantResult(t, "rejected effect", res[1], 0, guard.ErrFailed)
		wantTransient(t, "failing effect", res[2].Err, errHook)
		wantResult(t, "done key", res[3], guard.Duplicate, nil)
		wantResult(t, "second copy of an applied key", res[4], guard.Duplicate, nil)
		wantTransient(t, "second copy of a failing key", res[5].Err, errHook)
		if sent[ok] != 1 || sent[rejected] != 1 || sent[failing] != 1 || sent[dup] != 0 {
			t.Errorf("effects ran %v; want ok, rejected and failing once, dup never", sent)
		}
		e.mustDuplicate(ok, nil, []byte("r-"+ok))
		e.wantState(rejected, guard.StateFailed)
		e.wantState(failing, "")
	}},
}
