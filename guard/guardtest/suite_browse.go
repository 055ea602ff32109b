package guardtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// browseCases test the operators' methods of guard.Operator: Records,
// Stats, Lookup and Amend.
var browseCases = []testCase{
	{"Browse/records-and-stats", testRecordsAndStats},
	{"Browse/records-past-one-page", testRecordsPages},
	{"Browse/lookup-by-hash", testLookupByHash},
	{"Browse/amend", testAmend},
	{"Browse/amend-never-changes-a-live-lease", testAmendRacesClaims},
}

// operator returns e's store as a guard.Operator.
func (e *env) operator() guard.Operator {
	e.t.Helper()
	op, ok := e.b.Store.(guard.Operator)
	if !ok {
		e.t.Fatalf("%T is not a guard.Operator", e.b.Store)
	}
	return op
}

// records lists what f selects as "consumer state key" lines, sorted.
func (e *env) records(f guard.RecordFilter) []string {
	e.t.Helper()
	var out []string
	for r, err := range e.operator().Records(e.ctx, f) {
		if err != nil {
			e.t.Fatalf("Records(%+v): %v", f, err)
		}
		if r.Hash != guard.KeyHash(r.Key) {
			e.t.Errorf("record %q has hash %x, want its key's %x", r.Key, r.Hash, guard.KeyHash(r.Key))
		}
		out = append(out, fmt.Sprintf("%s %s %s", r.Consumer, r.State, r.Key))
	}
	slices.Sort(out)
	return out
}

// lookup reads k's record of e's consumer by its hash.
func (e *env) lookup(k string) *guard.StoredRecord {
	e.t.Helper()
	r, err := e.operator().Lookup(e.ctx, e.consumer, guard.KeyHash(k))
	if err != nil {
		e.t.Fatalf("Lookup(%q): %v", k, err)
	}
	return r
}

// makeFailed makes k a failed key with reason why.
func (e *env) makeFailed(k, why string) {
	e.t.Helper()
	_, err := e.doHook(k, nil, 1, func(context.Context) error { return guard.Reject(errors.New(why)) })
	wantErr(e.t, "Do whose hook rejects", err, guard.ErrFailed)
}

// makeUncertain makes k an uncertain key of an at-most-once store.
func (e *env) makeUncertain(k string) {
	e.t.Helper()
	e.mustClaim(k, nil)
	e.expireLease(k)
	_, err := e.claim(k, nil)
	wantErr(e.t, "Claim after an at-most-once lease expired", err, guard.ErrUncertain)
}

func testRecordsAndStats(t *testing.T, h Harness) {
	e := setup(t, h, guard.WithDelivery(guard.AtMostOnce), guard.WithKeyIdentity("orders v1"))
	other := "add_points"
	done, live, lapsed, failed, uncertain, gone := key("done"), key("live"), key("lapsed"), key("failed"), key("uncertain"), key("gone")
	e.mustDo(done, nil, 1, guard.Applied)
	e.mustClaim(live, nil)
	e.mustClaim(lapsed, nil)
	e.expireLease(lapsed)
	e.makeFailed(failed, "no stock")
	e.makeUncertain(uncertain)
	e.mustDo(gone, nil, 1, guard.Applied)
	e.expireRecord(gone)
	if _, err := e.b.Do(e.ctx, other, done, nil, Effect{Counter: e.counter, Delta: 1}); err != nil {
		t.Fatal(err)
	}

	all := []string{
		other + " done " + done,
		e.consumer + " done " + done,
		e.consumer + " failed " + failed,
		e.consumer + " pending " + lapsed,
		e.consumer + " pending " + live,
		e.consumer + " uncertain " + uncertain,
	}
	slices.Sort(all)
	for _, c := range []struct {
		name string
		f    guard.RecordFilter
		want []string
	}{
		{"all", guard.RecordFilter{}, all},
		{"consumer", guard.RecordFilter{Consumer: other}, all[:1]},
		{"states", guard.RecordFilter{States: []guard.State{guard.StateFailed, guard.StateUncertain}}, []string{all[2], all[5]}},
		{"consumer and state", guard.RecordFilter{Consumer: e.consumer, States: []guard.State{guard.StateDone}}, all[1:2]},
		{"older than an hour", guard.RecordFilter{MinAge: time.Hour}, nil},
		{"younger than an hour", guard.RecordFilter{MaxAge: time.Hour}, all},
		{"a consumer without records", guard.RecordFilter{Consumer: "deduct"}, nil},
	} {
		if got := e.records(c.f); !slices.Equal(got, c.want) {
			t.Errorf("Records, %s = %q, want %q", c.name, got, c.want)
		}
	}
	withExpired := e.records(guard.RecordFilter{Expired: true, Consumer: e.consumer})
	if wantGone := e.consumer + " done " + gone; !h.TTLPurge && !slices.Contains(withExpired, wantGone) {
		t.Errorf("Records with Expired = %q, want %q among them", withExpired, wantGone)
	}

	// Stopping early stops the listing.
	n := 0
	for _, err := range e.operator().Records(e.ctx, guard.RecordFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}

	st, err := e.operator().Stats(e.ctx, "")
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if len(st.Consumers) != 2 || st.Consumers[0].Consumer != other || st.Consumers[1].Consumer != e.consumer {
		t.Fatalf("Stats consumers = %+v, want %s and %s", st.Consumers, other, e.consumer)
	}
	c := st.Consumers[1]
	wantStates := map[guard.State]int64{guard.StateDone: 1, guard.StatePending: 2, guard.StateFailed: 1, guard.StateUncertain: 1}
	wantExpired := int64(1)
	if h.TTLPurge {
		wantExpired = 0
	}
	switch {
	case fmt.Sprint(c.States) != fmt.Sprint(wantStates):
		t.Errorf("Stats states = %v, want %v", c.States, wantStates)
	case c.Expired != wantExpired:
		t.Errorf("Stats expired = %d, want %d", c.Expired, wantExpired)
	case c.ExpiredLeases != 1:
		t.Errorf("Stats expired leases = %d, want 1", c.ExpiredLeases)
	case c.OldestPending.IsZero() || absDuration(st.Now.Sub(c.OldestPending)) > time.Minute:
		t.Errorf("Stats oldest pending = %s, want shortly before %s", c.OldestPending, st.Now)
	case st.Size <= 0:
		t.Errorf("Stats size = %d, want the bytes the records take", st.Size)
	}
	one, err := e.operator().Stats(e.ctx, other)
	if err != nil || len(one.Consumers) != 1 || one.Consumers[0].States[guard.StateDone] != 1 {
		t.Errorf("Stats(%q) = %+v, %v; want one done record", other, one, err)
	}
}

// testRecordsPages lists more records than one query or SCAN batch reads,
// of two consumers, each once.
func testRecordsPages(t *testing.T, h Harness) {
	e := setup(t, h)
	const n = 260
	for i := range n {
		consumer := []string{e.consumer, "add_points"}[i%2]
		if _, err := e.b.Do(e.ctx, consumer, key("page", fmt.Sprint(i)), nil, Effect{Counter: e.counter, Delta: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []guard.RecordFilter{{}, {Consumer: e.consumer}} {
		got := e.records(f)
		want := n
		if f.Consumer != "" {
			want = n / 2
		}
		if len(got) != want || len(slices.Compact(slices.Clone(got))) != want {
			t.Errorf("Records(%+v) listed %d records, %d distinct; want %d", f, len(got), len(slices.Compact(slices.Clone(got))), want)
		}
	}
}

func testLookupByHash(t *testing.T, h Harness) {
	e := setup(t, h)
	k := "v1 \x00\xff\x1b[2J" // a NUL, a byte that is not UTF-8, a terminal escape
	e.mustDo(k, nil, 1, guard.Applied)
	r := e.lookup(k)
	switch {
	case r == nil:
		t.Fatalf("Lookup(%q) = nil, want the record", k)
	case r.State != guard.StateDone || r.Consumer != e.consumer || r.Hash != guard.KeyHash(k) || r.Expired() || r.LeaseLive():
		t.Errorf("Lookup(%q) = %+v, want a done record of %s, not expired", k, r, e.consumer)
	case r.Key != k && !strings.Contains(r.Key, "\uFFFD"):
		t.Errorf("Lookup(%q) key text = %q, want the key or its text made valid", k, r.Key)
	}
	if r := e.lookup("v1 absent"); r != nil {
		t.Errorf("Lookup of an absent key = %+v, want nil", r)
	}
	if !h.TTLPurge {
		e.expireRecord(k)
		if r := e.lookup(k); r == nil || !r.Expired() {
			t.Errorf("Lookup of an expired record = %+v, want it, expired", r)
		}
	}
}

func testAmend(t *testing.T, h Harness) {
	e := setup(t, h, guard.WithDelivery(guard.AtMostOnce), guard.WithLease(5*time.Second), guard.WithKeyIdentity("orders v1"))
	op := e.operator()
	amend := func(k string, c guard.Change) error {
		t.Helper()
		r := e.lookup(k)
		if r == nil {
			t.Fatalf("Lookup(%q) = nil", k)
		}
		return op.Amend(e.ctx, r, c)
	}

	failed := key("failed")
	e.makeFailed(failed, "no stock")
	if err := amend(failed, guard.Change{}); err != nil {
		t.Fatalf("Amend (delete) of a failed key: %v", err)
	}
	e.mustDo(failed, nil, 1, guard.Applied)

	done := key("uncertain-done")
	e.makeUncertain(done)
	if err := amend(done, guard.Change{To: guard.StateDone, Result: []byte("sent, says the provider")}); err != nil {
		t.Fatalf("Amend (done) of an uncertain key: %v", err)
	}
	e.mustDuplicate(done, nil, []byte("sent, says the provider"))

	keep := key("uncertain-failed")
	e.makeUncertain(keep)
	if err := amend(keep, guard.Change{To: guard.StateFailed, Result: []byte("operator: not sent")}); err != nil {
		t.Fatalf("Amend (failed) of an uncertain key: %v", err)
	}
	_, err := e.claim(keep, nil)
	wantErr(t, "Claim of a key an operator failed", err, guard.ErrFailed)
	if !strings.Contains(err.Error(), "operator: not sent") {
		t.Errorf("Claim of a key an operator failed: %v, want the reason in it", err)
	}

	live := key("live")
	l := e.mustClaim(live, nil)
	if err := amend(live, guard.Change{}); !errors.Is(err, guard.ErrLiveLease) {
		t.Errorf("Amend of a live lease: %v, want ErrLiveLease", err)
	}
	if err := l.Complete(e.ctx, nil); err != nil {
		t.Errorf("Complete after a refused Amend: %v", err)
	}

	// A record read while its lease had expired, then extended by its
	// owner: the lease is live again and must not be touched.
	ext := key("extended")
	l = e.mustClaim(ext, nil)
	e.expireLease(ext)
	seen := e.lookup(ext)
	if err := l.Extend(e.ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := op.Amend(e.ctx, seen, guard.Change{To: guard.StateDone}); !errors.Is(err, guard.ErrLiveLease) && !errors.Is(err, guard.ErrRecordChanged) {
		t.Errorf("Amend of a lease extended since it was read: %v, want ErrLiveLease or ErrRecordChanged", err)
	}
	if err := l.Complete(e.ctx, nil); err != nil {
		t.Errorf("Complete of the extended lease: %v", err)
	}

	// A record deleted and written again since it was read.
	again := key("again")
	e.makeFailed(again, "first")
	seen = e.lookup(again)
	if err := e.b.Store.Forget(e.ctx, e.consumer, again); err != nil {
		t.Fatal(err)
	}
	e.makeFailed(again, "second")
	if err := op.Amend(e.ctx, seen, guard.Change{}); !errors.Is(err, guard.ErrRecordChanged) {
		t.Errorf("Amend of a record written again since it was read: %v, want ErrRecordChanged", err)
	}
	e.wantState(again, guard.StateFailed)

	// What Amend refuses before it reaches the store.
	id, err := op.Lookup(e.ctx, e.consumer, guard.KeyHash(guard.IdentityRecordKey))
	if err != nil || id == nil {
		t.Fatalf("Lookup of the key identity record = %+v, %v", id, err)
	}
	if err := op.Amend(e.ctx, id, guard.Change{}); err == nil {
		t.Error("Amend of the key identity record: no error")
	}
	if err := amend(again, guard.Change{To: guard.StatePending}); err == nil {
		t.Error("Amend to pending: no error")
	}
	if err := op.Amend(e.ctx, nil, guard.Change{}); err == nil {
		t.Error("Amend of nil: no error")
	}
}

// testAmendRacesClaims races an operator's Amend, made on a failed record
// read before its retention ended, against claims that may take the key
// over once it has: whoever wins, a lease a claim acquired completes.
func testAmendRacesClaims(t *testing.T, h Harness) {
	e := setup(t, h, guard.WithLease(5*time.Second))
	op := e.operator()
	const rounds = 12
	for i := range rounds {
		k := key("race", fmt.Sprint(i))
		e.makeFailed(k, "no stock")
		seen := e.lookup(k)
		e.expireRecord(k)
		var wg sync.WaitGroup
		var amendErr error
		leases := make([]*guard.Lease, 3)
		errs := make([]error, 3)
		change := guard.Change{To: guard.StateDone}
		if i%2 == 1 {
			change = guard.Change{}
		}
		wg.Go(func() { amendErr = op.Amend(e.ctx, seen, change) })
		for j := range leases {
			wg.Go(func() { leases[j], errs[j] = e.claim(k, nil) })
		}
		wg.Wait()
		if amendErr != nil && !errors.Is(amendErr, guard.ErrRecordChanged) && !errors.Is(amendErr, guard.ErrLiveLease) {
			t.Fatalf("round %d: Amend: %v", i, amendErr)
		}
		held := 0
		for j, l := range leases {
			var ip *guard.InProgressError
			switch {
			case errs[j] != nil && !errors.As(errs[j], &ip):
				t.Fatalf("round %d: Claim: %v", i, errs[j])
			case l != nil && l.Outcome() == guard.Applied:
				held++
				if err := l.Complete(e.ctx, nil); err != nil {
					t.Fatalf("round %d: Complete of a lease acquired while an operator amended (amend: %v): %v", i, amendErr, err)
				}
			}
		}
		if held > 1 {
			t.Fatalf("round %d: %d claims held the key at once", i, held)
		}
	}
}
