package guardtest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/idemkit/idem/guard"
)

// The key identities of the identity cases: what generated handlers pass
// to guard.WithKeyIdentity before and after a change of their keys.
const (
	identityA = "v1 key=order_id:string fp=quantity:int64"
	identityB = "v1 key=order_id:string,sku:string fp=quantity:int64"
)

// wantIdentity checks the identity recorded for consumer.
func (e *env) wantIdentity(consumer, want string) {
	e.t.Helper()
	got, err := e.b.Store.KeyIdentity(e.ctx, consumer)
	if err != nil || got != want {
		e.t.Fatalf("KeyIdentity(%s) = %q, %v; want %q", consumer, got, err, want)
	}
}

// wantIdentityChanged checks that err refuses a claim of consumer for a
// changed key identity: ErrKeyIdentityChanged, not permanent, naming the
// consumer and both identities.
func wantIdentityChanged(t testing.TB, what string, err error, consumer, recorded, configured string) {
	t.Helper()
	wantTransient(t, what, err, guard.ErrKeyIdentityChanged)
	var ie *guard.KeyIdentityError
	if !errors.As(err, &ie) || ie.Consumer != consumer || ie.Recorded != recorded || ie.Configured != configured {
		t.Fatalf("%s: err = %v, want a *guard.KeyIdentityError for %s, %q → %q", what, err, consumer, recorded, configured)
	}
	for _, s := range []string{consumer, fmt.Sprintf("%q", recorded), fmt.Sprintf("%q", configured)} {
		wantMessage(t, what, err, s)
	}
}

// identityCases test the key identity check (guard.WithKeyIdentity) and its
// record: every claim path checks it, Purge never removes it, operators
// read and reset it.
var identityCases = []testCase{
	{"Identity/first-claim-records-it-same-passes-changed-is-refused", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity(identityA))
		e.wantIdentity(e.consumer, "")
		e.mustDo(key("o1"), nil, 1, guard.Applied)
		e.wantIdentity(e.consumer, identityA)

		// Another process of the same deployment: same identity, passes.
		same := e.clone()
		same.mustDo(key("o1"), nil, 1, guard.Duplicate)
		same.mustDo(key("o2"), nil, 1, guard.Applied)

		// A deployment whose keys mean something else: refused on every
		// claim path, with nothing applied and nothing recorded.
		changed := e.clone(guard.WithKeyIdentity(identityB))
		_, err := changed.do(key("o3"), nil, 1)
		wantIdentityChanged(t, "Do with a changed identity", err, e.consumer, identityA, identityB)
		_, err = changed.claim(key("o3"), nil)
		wantIdentityChanged(t, "Claim with a changed identity", err, e.consumer, identityA, identityB)
		_, err = changed.b.Store.Run(e.ctx, e.consumer, key("o3"), nil, func(context.Context, *guard.Lease) error {
			t.Error("Run called apply with a changed key identity")
			return nil
		})
		wantIdentityChanged(t, "Run with a changed identity", err, e.consumer, identityA, identityB)
		// A refusal is not remembered: it is asked again (and given again).
		_, err = changed.do(key("o1"), nil, 1)
		wantIdentityChanged(t, "second Do with a changed identity", err, e.consumer, identityA, identityB)
		e.wantState(key("o3"), "")
		e.wantCount(2)
		e.wantIdentity(e.consumer, identityA)

		// The new keys in a namespace of their own (key_version: name@v2).
		v2 := changed.clone()
		v2.consumer = e.consumer + "@v2"
		v2.mustDo(key("o1"), nil, 1, guard.Applied)
		v2.wantIdentity(v2.consumer, identityB)
		e.wantIdentity(e.consumer, identityA)

		// No identity: no check, no record.
		none := e.clone(guard.WithKeyIdentity(""))
		none.consumer = "unchecked"
		none.mustDo(key("o1"), nil, 1, guard.Applied)
		none.wantIdentity("unchecked", "")
	}},
	{"Identity/operators-read-and-reset-it", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity(identityA))
		e.mustClaim(key("sms-1"), nil)
		e.wantIdentity(e.consumer, identityA)
		changed := e.clone(guard.WithKeyIdentity(identityB))
		_, err := changed.claim(key("sms-2"), nil)
		wantIdentityChanged(t, "Claim with a changed identity", err, e.consumer, identityA, identityB)

		// The operator has dealt with the change and resets the record: the
		// next claim records the identity it comes with.
		if err := e.b.Store.ForgetKeyIdentity(e.ctx, e.consumer); err != nil {
			t.Fatalf("ForgetKeyIdentity: %v", err)
		}
		e.wantIdentity(e.consumer, "")
		if err := e.b.Store.ForgetKeyIdentity(e.ctx, e.consumer); err != nil {
			t.Fatalf("ForgetKeyIdentity of no record: %v", err)
		}
		changed.mustClaim(key("sms-2"), nil)
		e.wantIdentity(e.consumer, identityB)
		// The dedup records are untouched by either.
		e.wantState(key("sms-1"), guard.StatePending)

		for _, bad := range []string{"", "a\x00b"} {
			if _, err := e.b.Store.KeyIdentity(e.ctx, bad); err == nil {
				t.Errorf("KeyIdentity(%q) = nil error", bad)
			}
			if err := e.b.Store.ForgetKeyIdentity(e.ctx, bad); err == nil {
				t.Errorf("ForgetKeyIdentity(%q) = nil error", bad)
			}
		}
	}},
	{"Identity/purge-never-removes-it", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity(identityA))
		e.mustDo(key("o1"), nil, 1, guard.Applied)
		// Every record's retention ends — in SQL the identity record's too,
		// as an operator's UPDATE of the whole table would do it.
		e.expireAll()
		if _, err := e.b.Store.Purge(e.ctx); err != nil {
			t.Fatal(err)
		}
		e.wantState(key("o1"), "")
		e.wantIdentity(e.consumer, identityA)
		_, err := e.clone(guard.WithKeyIdentity(identityB)).do(key("o2"), nil, 1)
		wantIdentityChanged(t, "Do with a changed identity after Purge", err, e.consumer, identityA, identityB)
		e.clone().mustDo(key("o1"), nil, 1, guard.Applied)
	}},
	{"Identity/concurrent-first-claims-with-one-identity-all-pass", func(t *testing.T, h Harness) {
		const processes, perProcess = 4, 4
		e := setup(t, h)
		var stores []*env
		for range processes {
			stores = append(stores, e.clone(guard.WithKeyIdentity(identityA)))
		}
		var applied atomic.Int32
		parallel(processes*perProcess, func(i int) {
			out, err := stores[i%processes].do(key("o", fmt.Sprint(i)), nil, 1)
			switch {
			case err != nil:
				t.Errorf("concurrent first Do %d: %v", i, err)
			case out == guard.Applied:
				applied.Add(1)
			}
		})
		if applied.Load() != processes*perProcess {
			t.Fatalf("%d of %d first claims applied", applied.Load(), processes*perProcess)
		}
		e.wantIdentity(e.consumer, identityA)
	}},
	{"Identity/concurrent-first-claims-with-two-identities-one-wins", func(t *testing.T, h Harness) {
		e := setup(t, h)
		ids := []string{identityA, identityB}
		var stores []*env
		for i := range 6 {
			stores = append(stores, e.clone(guard.WithKeyIdentity(ids[i%2])))
		}
		var passed [2]atomic.Int32
		parallel(len(stores), func(i int) {
			_, err := stores[i].do(key("o", fmt.Sprint(i)), nil, 1)
			switch {
			case err == nil:
				passed[i%2].Add(1)
			case !errors.Is(err, guard.ErrKeyIdentityChanged):
				t.Errorf("first Do %d: %v", i, err)
			}
		})
		recorded, err := e.b.Store.KeyIdentity(e.ctx, e.consumer)
		if err != nil {
			t.Fatal(err)
		}
		winner := 0
		if recorded == identityB {
			winner = 1
		}
		if recorded != ids[winner] || passed[winner].Load() != 3 || passed[1-winner].Load() != 0 {
			t.Fatalf("recorded %q; %d and %d claims passed per identity, want all 3 of the recorded one's and none of the other's",
				recorded, passed[0].Load(), passed[1].Load())
		}
	}},
	{"Identity/checked-once-per-store", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity(identityA))
		e.mustDo(key("o1"), nil, 1, guard.Applied)
		// The record changes behind the store's back (another deployment
		// reset it and recorded its own): this store checked before and
		// does not ask again; a fresh one does.
		if err := e.b.Tamper.Write(e.ctx, e.consumer, guard.IdentityRecordKey, RawRecord{State: "done", Result: []byte(identityB)}); err != nil {
			t.Fatal(err)
		}
		e.mustDo(key("o2"), nil, 1, guard.Applied)
		e.mustClaim(key("o3"), nil)
		_, err := e.clone().do(key("o4"), nil, 1)
		wantIdentityChanged(t, "Do of a fresh store", err, e.consumer, identityB, identityA)
	}},
	{"Identity/corrupt-record-is-refused-and-kept", func(t *testing.T, h Harness) {
		for _, c := range []struct {
			name string
			r    RawRecord
		}{
			{"pending", RawRecord{State: "pending", Result: []byte(identityA), LeaseIn: guard.DefaultLease}},
			{"failed", RawRecord{State: "failed", Result: []byte(identityA)}},
			{"no identity", RawRecord{State: "done"}},
			{"empty identity", RawRecord{State: "done", Result: []byte{}}},
		} {
			e := setup(t, h, guard.WithKeyIdentity(identityA))
			if err := e.b.Tamper.Write(e.ctx, e.consumer, guard.IdentityRecordKey, c.r); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			_, err := e.do(key("o1"), nil, 1)
			wantTransient(t, c.name+": Do over a corrupt identity record", err, guard.ErrKeyIdentityChanged)
			wantMessage(t, c.name+": Do over a corrupt identity record", err, "corrupt")
			if _, err := e.b.Store.KeyIdentity(e.ctx, e.consumer); !errors.Is(err, guard.ErrKeyIdentityChanged) {
				t.Errorf("%s: KeyIdentity of a corrupt record: %v, want ErrKeyIdentityChanged", c.name, err)
			}
			e.wantCount(0)
			if err := e.b.Store.ForgetKeyIdentity(e.ctx, e.consumer); err != nil {
				t.Fatal(err)
			}
			e.mustDo(key("o1"), nil, 1, guard.Applied)
			e.wantIdentity(e.consumer, identityA)
		}
	}},
	{"Identity/cancelled-check-is-not-remembered", func(t *testing.T, h Harness) {
		e := setup(t, h, guard.WithKeyIdentity(identityA))
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		_, err := e.b.Do(ctx, e.consumer, key("o1"), nil, Effect{Counter: e.counter, Delta: 1})
		wantTransient(t, "Do with a cancelled context", err, nil)
		if _, err := e.b.Store.Claim(ctx, e.consumer, key("o1"), nil); err == nil {
			t.Fatal("Claim with a cancelled context: err = nil")
		}
		e.wantIdentity(e.consumer, "")
		e.mustDo(key("o1"), nil, 1, guard.Applied)
		e.wantIdentity(e.consumer, identityA)
	}},
}
