package guard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/internal/storekit"
)

func TestDecideClaim(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	fp, other := []byte("v1:aaaa"), []byte("v1:bbbb")
	rec := func(s guard.State, stored []byte, lease, expires time.Duration) *guard.Record {
		r := &guard.Record{State: s, Fingerprint: stored, ExpiresAt: now.Add(expires)}
		if s == guard.StatePending {
			r.LeaseUntil = now.Add(lease)
		}
		return r
	}
	const live, gone, kept = 2 * time.Second, -time.Second, time.Hour
	type want struct {
		alo, amo   storekit.Action
		retryAfter time.Duration
	}
	tests := []struct {
		name string
		rec  *guard.Record
		fp   []byte
		want want
	}{
		{"absent", nil, fp, want{storekit.ActInsert, storekit.ActInsert, 0}},

		{"done, same fingerprint", rec(guard.StateDone, fp, 0, kept), fp, want{storekit.ActDuplicate, storekit.ActDuplicate, 0}},
		{"done, other fingerprint", rec(guard.StateDone, fp, 0, kept), other, want{storekit.ActConflict, storekit.ActConflict, 0}},
		{"done, no stored fingerprint", rec(guard.StateDone, nil, 0, kept), fp, want{storekit.ActDuplicate, storekit.ActDuplicate, 0}},
		{"done, no presented fingerprint", rec(guard.StateDone, fp, 0, kept), nil, want{storekit.ActDuplicate, storekit.ActDuplicate, 0}},
		{"done, expired", rec(guard.StateDone, fp, 0, gone), other, want{storekit.ActReclaim, storekit.ActReclaim, 0}},
		{"done, expiring now", rec(guard.StateDone, fp, 0, 0), fp, want{storekit.ActReclaim, storekit.ActReclaim, 0}},

		{"failed", rec(guard.StateFailed, fp, 0, kept), fp, want{storekit.ActFailed, storekit.ActFailed, 0}},
		{"failed, other fingerprint", rec(guard.StateFailed, fp, 0, kept), other, want{storekit.ActFailed, storekit.ActFailed, 0}},
		{"failed, expired", rec(guard.StateFailed, fp, 0, gone), fp, want{storekit.ActReclaim, storekit.ActReclaim, 0}},

		{"uncertain", rec(guard.StateUncertain, fp, 0, kept), fp, want{storekit.ActUncertain, storekit.ActUncertain, 0}},
		{"uncertain, other fingerprint", rec(guard.StateUncertain, fp, 0, kept), other, want{storekit.ActUncertain, storekit.ActUncertain, 0}},
		{"uncertain, expired", rec(guard.StateUncertain, fp, 0, gone), fp, want{storekit.ActReclaim, storekit.ActReclaim, 0}},

		{"pending, live lease", rec(guard.StatePending, fp, live, kept), fp, want{storekit.ActInProgress, storekit.ActInProgress, live}},
		{"pending, live lease, other fingerprint", rec(guard.StatePending, fp, live, kept), other, want{storekit.ActConflict, storekit.ActConflict, 0}},
		{"pending, live lease past the retention", rec(guard.StatePending, fp, live, gone), fp, want{storekit.ActInProgress, storekit.ActInProgress, live}},
		{"pending, lease expired", rec(guard.StatePending, fp, gone, kept), fp, want{storekit.ActTakeover, storekit.ActMarkUncertain, 0}},
		{"pending, lease expiring now", rec(guard.StatePending, fp, 0, kept), fp, want{storekit.ActTakeover, storekit.ActMarkUncertain, 0}},
		{"pending, lease expired, other fingerprint", rec(guard.StatePending, fp, gone, kept), other, want{storekit.ActConflict, storekit.ActConflict, 0}},
		{"pending, lease and retention expired", rec(guard.StatePending, fp, gone, gone), fp, want{storekit.ActReclaim, storekit.ActReclaim, 0}},
	}
	for _, tt := range tests {
		for _, d := range []guard.Delivery{guard.AtLeastOnce, guard.AtMostOnce} {
			t.Run(tt.name+"/"+d.String(), func(t *testing.T) {
				wantAction := tt.want.alo
				if d == guard.AtMostOnce {
					wantAction = tt.want.amo
				}
				v := storekit.DecideClaim(tt.rec, now, tt.fp, d)
				if v.Action != wantAction || v.RetryAfter != tt.want.retryAfter {
					t.Errorf("DecideClaim = %+v, want action %d retry after %s", v, wantAction, tt.want.retryAfter)
				}
			})
		}
	}
}

func TestActionAcquires(t *testing.T) {
	acquiring := map[storekit.Action]bool{storekit.ActInsert: true, storekit.ActReclaim: true, storekit.ActTakeover: true}
	for a := storekit.ActInsert; a <= storekit.ActInProgress; a++ {
		if a.Acquires() != acquiring[a] {
			t.Errorf("Action(%d).Acquires() = %t", a, a.Acquires())
		}
	}
}

func TestRecordExpired(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		rec  guard.Record
		want bool
	}{
		{guard.Record{State: guard.StateDone, ExpiresAt: now.Add(time.Second)}, false},
		{guard.Record{State: guard.StateDone, ExpiresAt: now}, true},
		{guard.Record{State: guard.StatePending, ExpiresAt: now.Add(-time.Second), LeaseUntil: now.Add(time.Second)}, false},
		{guard.Record{State: guard.StatePending, ExpiresAt: now.Add(-time.Second), LeaseUntil: now}, true},
		{guard.Record{State: guard.StateUncertain, ExpiresAt: now.Add(-time.Second), LeaseUntil: now.Add(time.Second)}, true},
	} {
		if got := tt.rec.Expired(now); got != tt.want {
			t.Errorf("%+v.Expired = %t, want %t", tt.rec, got, tt.want)
		}
	}
}

func TestConfigRefuse(t *testing.T) {
	rec := guardtest.NewRecorder()
	cfg, err := guard.NewConfig(guard.WithObserver(rec))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	failed := &guard.Record{State: guard.StateFailed, Result: []byte("out of stock")}
	tests := []struct {
		v        storekit.Verdict
		rec      *guard.Record
		sentinel error
		decision guard.Decision
		message  string
	}{
		{storekit.Verdict{Action: storekit.ActDuplicate}, &guard.Record{State: guard.StateDone, Result: []byte("r")}, nil, guard.DecisionDuplicate, ""},
		{storekit.Verdict{Action: storekit.ActConflict}, &guard.Record{State: guard.StateDone}, guard.ErrKeyConflict, guard.DecisionConflict, ""},
		{storekit.Verdict{Action: storekit.ActFailed}, failed, guard.ErrFailed, guard.DecisionFailed, "out of stock"},
		{storekit.Verdict{Action: storekit.ActUncertain}, &guard.Record{State: guard.StateUncertain}, guard.ErrUncertain, guard.DecisionUncertain, ""},
		{storekit.Verdict{Action: storekit.ActMarkUncertain}, &guard.Record{State: guard.StatePending}, guard.ErrUncertain, guard.DecisionUncertain, ""},
		{storekit.Verdict{Action: storekit.ActInProgress, RetryAfter: time.Second}, &guard.Record{State: guard.StatePending}, guard.ErrInProgress, guard.DecisionInProgress, "retry after 1s"},
	}
	for _, tt := range tests {
		rec.Reset()
		out, err := storekit.Refuse(ctx, cfg, 0, "deduct_inventory", "v11:a", tt.v, tt.rec)
		switch {
		case tt.sentinel == nil && (err != nil || out != guard.Duplicate):
			t.Errorf("Refuse(%d) = %v, %v; want duplicate", tt.v.Action, out, err)
		case tt.sentinel != nil && !errors.Is(err, tt.sentinel):
			t.Errorf("Refuse(%d) error = %v, want %v", tt.v.Action, err, tt.sentinel)
		case tt.message != "" && !strings.Contains(err.Error(), tt.message):
			t.Errorf("Refuse(%d) error %q lacks %q", tt.v.Action, err, tt.message)
		}
		if ev := rec.Events(); len(ev) != 1 || ev[0].Decision != tt.decision || ev[0].Consumer != "deduct_inventory" || ev[0].Key != "v11:a" {
			t.Errorf("Refuse(%d) observed %+v, want one %s event", tt.v.Action, ev, tt.decision)
		}
	}
	for _, a := range []storekit.Action{storekit.ActInsert, storekit.ActReclaim, storekit.ActTakeover} {
		if _, err := storekit.Refuse(ctx, cfg, 0, "c", "k", storekit.Verdict{Action: a}, nil); err == nil {
			t.Errorf("Refuse of acquiring action %d = nil error", a)
		}
	}
}

func TestValidateClaim(t *testing.T) {
	if err := storekit.ValidateClaim("send_sms", "v11:a"); err != nil {
		t.Errorf("ValidateClaim of a good claim: %v", err)
	}
	if err := storekit.ValidateClaim(strings.Repeat("c", 191), "v11:a"); err != nil {
		t.Errorf("ValidateClaim of a 191-byte consumer: %v", err)
	}
	for _, c := range [][2]string{{"", "k"}, {strings.Repeat("c", 192), "k"}, {"a\x00b", "k"}} {
		err := storekit.ValidateClaim(c[0], c[1])
		if err == nil || errors.Is(err, guard.ErrInvalidMessage) {
			t.Errorf("ValidateClaim(%q, %q) = %v, want a programming error", c[0], c[1], err)
		}
	}
	if err := storekit.ValidateClaim("c", ""); !errors.Is(err, guard.ErrEmptyKey) || !errors.Is(err, guard.ErrInvalidMessage) || !guard.Permanent(err) {
		t.Errorf("ValidateClaim with an empty key = %v, want ErrEmptyKey (an invalid message)", err)
	}
}
