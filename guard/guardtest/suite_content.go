package guardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// contentCases test what the stores do with what they find: records
// written by an older version or by hand, fingerprints and keys at their
// limits, the longest durations, and contexts that end between the steps
// of a call. Each answers clearly, never with a panic, and never lets an
// effect run twice.
var contentCases = []testCase{
	{"Content/long-fingerprint-is-stored-as-a-digest", func(t *testing.T, h Harness) {
		// A caller's own fingerprint (here: a raw body of 10 KB) is longer
		// than MySQL's VARBINARY(255) column: it is stored as a digest.
		e := setup(t, h)
		body := []byte(`{"sku":"x","qty":1,"note":"` + strings.Repeat("n", 10_000) + `"}`)
		other := bytes.Clone(body)
		other[len(other)-3] = 'm' // differs in one byte near the end
		k := key("o-long-fp")
		e.mustDo(k, body, 1, guard.Applied)
		e.mustDo(k, body, 1, guard.Duplicate)
		_, err := e.do(k, other, 1)
		wantErr(t, "Do with a long fingerprint differing in one byte", err, guard.ErrKeyConflict)
		r := e.wantState(k, guard.StateDone)
		if want := guard.StoredFingerprint(body); !bytes.Equal(r.Fingerprint, want) || len(want) != 67 {
			t.Errorf("stored fingerprint %q, want the 67-byte digest %q", r.Fingerprint, want)
		}
		e.consumer = "send_sms"
		l := e.mustClaim(k, body)
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
		e.mustDuplicate(k, body, nil)
		_, err = e.claim(k, other)
		wantErr(t, "Claim with a long fingerprint differing in one byte", err, guard.ErrKeyConflict)
		e.wantCount(1)
	}},
	{"Content/fingerprints-written-by-an-older-version", func(t *testing.T, h Harness) {
		// Older versions stored the caller's fingerprint bytes as they
		// were. Such records keep answering for the same message.
		var builder guard.FingerprintBuilder
		builder.String("sku", "x")
		digest := builder.Sum()
		raw := []byte("sku=x qty=1")
		cases := []struct {
			name              string
			stored, presented []byte
			want              guard.Outcome // 0: ErrKeyConflict
		}{
			{"raw bytes, same message", raw, raw, guard.Duplicate},
			{"raw bytes, another message", raw, []byte("sku=x qty=2"), 0},
			{"a FingerprintBuilder digest, same message", digest, digest, guard.Duplicate},
			{"a FingerprintBuilder digest, another message", digest, order{SKU: "y"}.fingerprint(), 0},
			{"binary bytes with NUL, same message", []byte{0, 0xff, 'x', 0}, []byte{0, 0xff, 'x', 0}, guard.Duplicate},
			// Cut short (a column too narrow, a hand edit): it vouches for
			// no message, so the redelivery is a conflict, never a duplicate.
			{"a digest cut short", digest[:40], digest, 0},
			{"raw bytes cut short", raw[:5], raw, 0},
			{"none stored", nil, raw, guard.Duplicate},
		}
		for _, c := range cases {
			e := setup(t, h)
			k := key("old", c.name)
			if err := e.b.Tamper.Write(e.ctx, e.consumer, k, RawRecord{State: "done", Fingerprint: c.stored, ExpiresIn: time.Hour}); err != nil {
				t.Fatal(err)
			}
			out, err := e.do(k, c.presented, 1)
			if c.want == 0 {
				wantErr(t, c.name, err, guard.ErrKeyConflict)
			} else if err != nil || out != c.want {
				t.Errorf("%s: Do = %s, want %v", c.name, describe(out, err), c.want)
			}
			_, err = e.claim(k, c.presented)
			if c.want == 0 {
				wantErr(t, c.name+" (Claim)", err, guard.ErrKeyConflict)
			} else if err != nil {
				t.Errorf("%s: Claim: %v, want a duplicate", c.name, err)
			}
			e.wantCount(0)
		}
	}},
	{"Content/longest-key", func(t *testing.T, h Harness) {
		e := setup(t, h)
		// The worst case for every column: MaxKeyLen bytes, none of them
		// valid UTF-8 (each becomes a three-byte U+FFFD in key_text).
		longest := strings.Repeat("\xff", guard.MaxKeyLen)
		e.mustDo(longest, nil, 1, guard.Applied)
		e.mustDo(longest, nil, 1, guard.Duplicate)
		e.wantState(longest, guard.StateDone)
		tooLong := longest + "\xff"
		_, err := e.do(tooLong, nil, 1)
		wantErr(t, "Do with a key one byte too long", err, guard.ErrInvalidMessage)
		wantMessage(t, "Do with a key one byte too long", err, e.consumer)
		wantMessage(t, "Do with a key one byte too long", err, fmt.Sprint(guard.MaxKeyLen+1))
		_, err = e.claim(tooLong, nil)
		wantErr(t, "Claim with a key one byte too long", err, guard.ErrInvalidMessage)
		_, err = e.b.Store.Run(e.ctx, e.consumer, tooLong, nil, func(context.Context, *guard.Lease) error {
			t.Error("Run called apply for a key too long")
			return nil
		})
		wantErr(t, "Run with a key one byte too long", err, guard.ErrInvalidMessage)
		e.wantCount(1)
	}},
	{"Content/long-results-and-reasons", func(t *testing.T, h Harness) {
		// An error text, however long, is kept cut to MaxReasonLen; a result
		// longer than MaxResultLen is refused before the store (whose column
		// or packet may not hold it: the record would never be written and
		// the message redelivered for ever).
		e := setup(t, h)
		huge := errors.New("out of stock: " + strings.Repeat("é", 10<<20)) // 20 MiB
		k := key("huge-reason")
		_, err := e.doHook(k, nil, 1, func(context.Context) error { return guard.Reject(huge) })
		wantErr(t, "Do whose hook rejects with a 20 MiB reason", err, guard.ErrFailed)
		r := e.wantState(k, guard.StateFailed)
		if len(r.Result) > guard.MaxReasonLen || !strings.HasPrefix(string(r.Result), "rejected: out of stock: éé") || !strings.HasSuffix(string(r.Result), "…") {
			t.Errorf("stored reason of %d bytes, want the reason cut to %d", len(r.Result), guard.MaxReasonLen)
		}
		_, err = e.do(k, nil, 1)
		wantErr(t, "redelivery of a key rejected with a long reason", err, guard.ErrFailed)

		e.consumer = "send_sms"
		l := e.mustClaim(key("huge-fail"), nil)
		if err := l.Fail(e.ctx, huge); err != nil {
			t.Fatalf("Fail with a 20 MiB reason: %v", err)
		}
		if r := e.wantState(key("huge-fail"), guard.StateFailed); len(r.Result) > guard.MaxReasonLen {
			t.Errorf("stored reason of %d bytes, want at most %d", len(r.Result), guard.MaxReasonLen)
		}

		big := bytes.Repeat([]byte{'r'}, guard.MaxResultLen+1)
		l = e.mustClaim(key("big-result"), nil)
		if err := l.Complete(e.ctx, big); err == nil || !strings.Contains(err.Error(), "MaxResultLen") {
			t.Fatalf("Complete with a result of %d bytes: %v, want a refusal", len(big), err)
		}
		if err := l.Complete(e.ctx, big[:guard.MaxResultLen]); err != nil {
			t.Fatalf("Complete with the longest result, after a refusal: %v", err)
		}
		e.mustDuplicate(key("big-result"), nil, big[:guard.MaxResultLen])
		if err := e.b.Store.Resolve(e.ctx, e.consumer, key("big-result"), big); err == nil {
			t.Error("Resolve with a result too long: err = nil")
		}

		calls := 0
		_, err = e.b.Store.Run(e.ctx, e.consumer, key("big-run"), nil, func(_ context.Context, l *guard.Lease) error {
			calls++
			l.SetResult(big)
			return nil
		})
		wantErr(t, "Run whose result is too long", err, guard.ErrFailed)
		_, err = e.b.Store.Run(e.ctx, e.consumer, key("big-run"), nil, func(context.Context, *guard.Lease) error {
			calls++
			return nil
		})
		wantErr(t, "redelivery of a Run whose result was too long", err, guard.ErrFailed)
		if calls != 1 {
			t.Errorf("the effect ran %d times, want once", calls)
		}
	}},
	{"Content/longest-durations", func(t *testing.T, h Harness) {
		// The longest retention and lease a Duration holds: stored rounded
		// up, never wrapped round to a short one.
		forever := time.Duration(math.MaxInt64)
		e := setup(t, h, guard.WithRetention(forever), guard.WithLease(forever))
		k := key("forever")
		e.mustDo(k, nil, 1, guard.Applied)
		e.mustDo(k, nil, 1, guard.Duplicate)
		in200y := time.Now().Add(200 * 365 * 24 * time.Hour)
		if r := e.wantState(k, guard.StateDone); r.ExpiresAt.Before(in200y) {
			t.Errorf("a record kept for %s expires at %s", forever, r.ExpiresAt)
		}
		l := e.mustClaim(key("forever-lease"), nil)
		_, err := e.claim(key("forever-lease"), nil)
		wantInProgress(t, "Claim of a lease of 292 years", err, e.consumer, forever)
		if r := e.wantState(key("forever-lease"), guard.StatePending); r.LeaseUntil.Before(in200y) {
			t.Errorf("a lease of %s ends at %s", forever, r.LeaseUntil)
		}
		if err := l.Complete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}},
	{"Content/hand-written-records", func(t *testing.T, h Harness) {
		cases := []struct {
			name string
			r    RawRecord
			// check runs a Claim and a Do over the record.
			check func(t *testing.T, e *env, k string)
		}{
			{"pending without lease nor owner", RawRecord{State: "pending", ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					l := e.mustClaim(k, nil) // an abandoned lease: taken over
					if !l.TakenOver() {
						t.Error("claim of a pending record without lease: TakenOver() = false")
					}
					if err := l.Complete(e.ctx, []byte("r")); err != nil {
						t.Fatal(err)
					}
					e.mustDo(k, nil, 1, guard.Duplicate)
				}},
			{"pending with a lease in the far future", RawRecord{State: "pending", Owner: "someone", LeaseIn: 100 * 365 * 24 * time.Hour, ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					// In progress, but never told to wait longer than a
					// lease may be held: a nak of a hundred years would lose
					// the message.
					_, err := e.claim(k, nil)
					wantInProgress(t, "Claim of a lease a century long", err, e.consumer, e.b.Store.Config().LeaseHoldLimit())
					_, err = e.do(k, nil, 1)
					wantInProgress(t, "Do of a lease a century long", err, e.consumer, e.b.Store.Config().LeaseHoldLimit())
				}},
			{"done without result", RawRecord{State: "done", ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					e.mustDuplicate(k, []byte("any"), nil)
					e.mustDo(k, nil, 1, guard.Duplicate)
				}},
			{"failed without reason", RawRecord{State: "failed", ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					_, err := e.claim(k, nil)
					wantErr(t, "Claim of a failed record without reason", err, guard.ErrFailed)
					_, err = e.do(k, nil, 1)
					wantErr(t, "Do of a failed record without reason", err, guard.ErrFailed)
				}},
			{"uncertain with a stale lease", RawRecord{State: "uncertain", Owner: "someone", LeaseIn: time.Hour, ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					_, err := e.claim(k, nil)
					wantErr(t, "Claim of an uncertain record", err, guard.ErrUncertain)
				}},
			{"key text unlike the key", RawRecord{State: "done", KeyText: "something else", ExpiresIn: time.Hour},
				func(t *testing.T, e *env, k string) {
					e.mustDo(k, nil, 1, guard.Duplicate) // the hash, not the text, names the record
				}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := setup(t, h)
				k := key("hand", c.name)
				if err := e.b.Tamper.Write(e.ctx, e.consumer, k, c.r); err != nil {
					t.Fatal(err)
				}
				c.check(t, e, k)
				e.wantCount(0)
			})
		}
	}},
	{"Content/unknown-state", func(t *testing.T, h Harness) {
		e := setup(t, h)
		k := key("unknown-state")
		err := e.b.Tamper.Write(e.ctx, e.consumer, k, RawRecord{State: "archived", ExpiresIn: time.Hour})
		if err != nil {
			// PostgreSQL and SQLite refuse it (the table's CHECK): a
			// record the stores cannot meet there.
			if !strings.Contains(strings.ToLower(err.Error()), "check") {
				t.Fatalf("writing an unknown state: %v, want the table's CHECK to refuse it or the store to hold it", err)
			}
			return
		}
		_, err = e.do(k, nil, 1)
		wantTransient(t, "Do over an unknown state", err, nil)
		wantMessage(t, "Do over an unknown state", err, `"archived"`)
		_, err = e.claim(k, nil)
		wantTransient(t, "Claim over an unknown state", err, nil)
		wantMessage(t, "Claim over an unknown state", err, `"archived"`)
		if _, err := e.b.Store.Inspect(e.ctx, e.consumer, k); err == nil {
			t.Error("Inspect of an unknown state: err = nil")
		}
		e.wantCount(0)
		// The operator's way out.
		if err := e.b.Store.Forget(e.ctx, e.consumer, k); err != nil {
			t.Fatal(err)
		}
		e.mustDo(k, nil, 1, guard.Applied)
	}},
	{"Content/contexts-ending-between-steps", func(t *testing.T, h Harness) {
		e := setup(t, h)
		cancelled, cancel := context.WithCancel(e.ctx)
		cancel()
		// Lease operations with an ended context fail and leave the lease
		// held: the owner can end it properly once it has a context again.
		k := key("sms-ctx")
		l := e.mustClaim(k, nil)
		for op, fn := range map[string]func(ctx context.Context) error{
			"Extend":   func(ctx context.Context) error { return l.Extend(ctx, time.Minute) },
			"Release":  func(ctx context.Context) error { return l.Release(ctx) },
			"Fail":     func(ctx context.Context) error { return l.Fail(ctx, errHook) },
			"Complete": func(ctx context.Context) error { return l.Complete(ctx, []byte("r")) },
		} {
			wantTransient(t, op+" with an ended context", fn(cancelled), nil)
			if r := e.wantState(k, guard.StatePending); r.Owner != l.Owner() {
				t.Fatalf("%s with an ended context changed the owner to %q", op, r.Owner)
			}
		}
		if err := l.Complete(e.ctx, []byte("r")); err != nil {
			t.Fatalf("Complete after the failed attempts: %v", err)
		}
		e.mustDuplicate(k, nil, []byte("r"))

		// A Do whose context ends after apply, before the commit: applied
		// and recorded, or neither — and a redelivery settles which.
		d := key("order-ctx")
		ctx, cancelDo := context.WithCancel(e.ctx)
		out, err := e.b.Do(ctx, e.consumer, d, nil, Effect{Counter: e.counter, Delta: 1, Hook: func(context.Context) error {
			cancelDo()
			return nil
		}})
		switch {
		case err == nil && out == guard.Applied:
			e.wantCount(1)
			e.mustDo(d, nil, 1, guard.Duplicate)
		case err != nil && !guard.Permanent(err):
			e.wantCount(0)
			e.wantState(d, "")
			e.mustDo(d, nil, 1, guard.Applied)
		default:
			t.Fatalf("Do whose context ended before the commit = %s", describe(out, err))
		}
		e.wantCount(1)

		// Inspect, Resolve, Forget and Purge with an ended context fail.
		if _, err := e.b.Store.Inspect(cancelled, e.consumer, d); err == nil {
			t.Error("Inspect with an ended context: err = nil")
		}
		if err := e.b.Store.Resolve(cancelled, e.consumer, key("r"), nil); err == nil {
			t.Error("Resolve with an ended context: err = nil")
		}
		if err := e.b.Store.Forget(cancelled, e.consumer, d); err == nil {
			t.Error("Forget with an ended context: err = nil")
		}
		e.mustDo(d, nil, 1, guard.Duplicate)
	}},
}
