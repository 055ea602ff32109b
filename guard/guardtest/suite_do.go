package guardtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// doCases test transactional effects (Backend.Do).
var doCases = []testCase{
	{"Do/applied-then-duplicate", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-1")
		e.mustDo(k, nil, 5, guard.Applied)
		e.wantCount(5)
		for range 3 {
			e.mustDo(k, nil, 5, guard.Duplicate)
		}
		e.wantCount(5)
		e.wantState(k, guard.StateDone)
	}},
	{"Do/resend-with-same-fingerprint-is-duplicate", func(t *testing.T, h Harness) {
		e := setup(t, h)
		first := order{ID: "o-17", SKU: "sku-9", Qty: 2, SentAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
		resend := first
		resend.SentAt = first.SentAt.Add(time.Minute) // the producer's resend: a new sent_at, not a fingerprint field
		if string(first.fingerprint()) != string(resend.fingerprint()) {
			t.Fatalf("fingerprints differ for a resend: %s vs %s", first.fingerprint(), resend.fingerprint())
		}
		e.mustDo(first.key(), first.fingerprint(), first.Qty, guard.Applied)
		e.mustDo(resend.key(), resend.fingerprint(), resend.Qty, guard.Duplicate)
		e.wantCount(2)
		if r := e.wantState(first.key(), guard.StateDone); string(r.Fingerprint) != string(first.fingerprint()) {
			t.Fatalf("stored fingerprint = %q, want %q", r.Fingerprint, first.fingerprint())
		}
	}},
	{"Do/different-fingerprint-is-key-conflict", func(t *testing.T, h Harness) {
		e := setup(t, h)
		first := order{ID: "o-18", SKU: "sku-9", Qty: 2}
		other := order{ID: "o-18", SKU: "sku-9", Qty: 3} // same key, another message
		e.mustDo(first.key(), first.fingerprint(), first.Qty, guard.Applied)
		for range 2 {
			_, err := e.do(other.key(), other.fingerprint(), other.Qty)
			wantErr(t, "Do with another fingerprint", err, guard.ErrKeyConflict)
		}
		e.wantCount(2)
		e.mustDo(first.key(), first.fingerprint(), first.Qty, guard.Duplicate)
	}},
	{"Do/no-fingerprint-never-conflicts", func(t *testing.T, h Harness) {
		e := setup(t, h)
		o := order{ID: "o-19", SKU: "a", Qty: 1}
		e.mustDo(o.key(), nil, 1, guard.Applied)
		e.mustDo(o.key(), o.fingerprint(), 1, guard.Duplicate)
		p := order{ID: "o-20", SKU: "a", Qty: 1}
		e.mustDo(p.key(), p.fingerprint(), 1, guard.Applied)
		e.mustDo(p.key(), nil, 1, guard.Duplicate)
		e.wantCount(2)
	}},
	{"Do/reject-keeps-key-failed", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-out-of-stock")
		reason := "out of stock: sku-3 has 0, wants 4"
		calls := 0
		_, err := e.doHook(k, nil, 4, func(context.Context) error {
			calls++
			return guard.Reject(errors.New(reason))
		})
		wantErr(t, "Do whose hook rejects", err, guard.ErrFailed)
		wantMessage(t, "Do whose hook rejects", err, reason)
		e.wantCount(0)
		for i := range 3 {
			_, err := e.doHook(k, nil, 4, func(context.Context) error {
				t.Errorf("redelivery %d of a failed key ran its effect", i)
				return nil
			})
			wantErr(t, "redelivery of a rejected key", err, guard.ErrFailed)
			wantMessage(t, "redelivery of a rejected key", err, reason)
		}
		e.wantCount(0)
		r := e.wantState(k, guard.StateFailed)
		if !strings.Contains(string(r.Result), reason) {
			t.Fatalf("failed record's reason = %q, want it to contain %q", r.Result, reason)
		}
		_, err = e.claim(k, nil)
		wantErr(t, "Claim of a rejected key", err, guard.ErrFailed)
	}},
	{"Do/hook-error-rolls-back", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-flaky")
		_, err := e.doHook(k, nil, 3, func(context.Context) error { return errHook })
		wantTransient(t, "Do whose hook fails", err, errHook)
		e.wantCount(0)
		e.wantState(k, "")
		e.mustDo(k, nil, 3, guard.Applied)
		e.wantCount(3)
		e.mustDo(k, nil, 3, guard.Duplicate)
	}},
	{"Do/concurrent-duplicates", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-concurrent")
		var applied, duplicate atomic.Int32
		parallel(16, func(int) {
			out, err := e.do(k, nil, 11)
			switch {
			case err != nil:
				t.Errorf("concurrent Do: %v", err)
			case out == guard.Applied:
				applied.Add(1)
			case out == guard.Duplicate:
				duplicate.Add(1)
			}
		})
		if applied.Load() != 1 || duplicate.Load() != 15 {
			t.Fatalf("16 concurrent deliveries: %d applied, %d duplicate; want 1 and 15", applied.Load(), duplicate.Load())
		}
		e.wantCount(11)
	}},
	{"Do/first-claimer-fails-one-other-applies", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-contended")
		entered, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		firstErr := make(chan error, 1)
		go func() {
			_, err := e.doHook(k, nil, 7, func(context.Context) error {
				once.Do(func() { close(entered) })
				<-release
				return errHook
			})
			firstErr <- err
		}()
		<-entered
		var applied, duplicate atomic.Int32
		var wg sync.WaitGroup
		started := make(chan struct{}, 7)
		for range 7 {
			wg.Go(func() {
				started <- struct{}{}
				out, err := e.do(k, nil, 7)
				switch {
				case err != nil:
					t.Errorf("Do racing a failing first claimer: %v", err)
				case out == guard.Applied:
					applied.Add(1)
				default:
					duplicate.Add(1)
				}
			})
		}
		// The others are on their way while the first claim is held: SQL
		// stores make them wait on it, Redis lets them race past it; either
		// way the answers below are the same, so the test needs no window.
		for range 7 {
			<-started
		}
		close(release)
		wg.Wait()
		wantTransient(t, "the failing first claimer", <-firstErr, errHook)
		if applied.Load() != 1 || duplicate.Load() != 6 {
			t.Fatalf("after the first claimer failed: %d applied, %d duplicate; want 1 and 6", applied.Load(), duplicate.Load())
		}
		e.wantCount(7)
	}},
	{"Do/expired-record-applies-again", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("order-old")
		e.mustDo(k, nil, 2, guard.Applied)
		e.mustDo(k, nil, 2, guard.Duplicate)
		e.expireRecord(k)
		e.wantState(k, "")
		e.mustDo(k, nil, 2, guard.Applied)
		e.mustDo(k, nil, 2, guard.Duplicate)
		e.wantCount(4)
	}},
	{"Do/keys-are-compared-as-bytes", func(t *testing.T, h Harness) {
		// A case-insensitive or PAD SPACE collation (MariaDB's defaults)
		// would fold some of these into one record.
		e := setup(t, h)
		keys := []string{
			"v11:A", "v11:a", "v12:a ", "v12:A ", "v11:\u00e1", "v12:a\u0301",
			"v12:a\x00", "v12:a\xff", "v12:a\xfe", // same key_text after UTF-8/NUL repair
		}
		for _, k := range keys {
			e.mustDo(k, nil, 1, guard.Applied)
		}
		for _, k := range keys {
			e.mustDo(k, nil, 1, guard.Duplicate)
		}
		e.wantCount(int64(len(keys)))
		for _, k := range keys[:6] {
			if r := e.wantState(k, guard.StateDone); r.Key != k {
				t.Errorf("Inspect(%q).Key = %q", k, r.Key)
			}
		}
	}},
	{"Do/consumers-are-separate", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("event-5")
		e.mustDo(k, nil, 1, guard.Applied)
		e.consumer = "add_points"
		e.mustDo(k, nil, 1, guard.Applied)
		e.mustDo(k, nil, 1, guard.Duplicate)
		e.wantCount(2)
	}},
}
