package e2e_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// handler is what every generated handler has: Handle decodes a message
// body, as a broker delivers it, and handles it.
type handler interface {
	Handle(ctx context.Context, body []byte) (guard.Outcome, error)
}

// result is the answer to one delivery.
type result struct {
	out guard.Outcome
	err error
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// deliverThrice delivers body three times in a row, as a broker redelivering
// after lost acks does, and checks the answers: Applied, then Duplicate twice.
func deliverThrice(t testing.TB, h handler, body string) {
	t.Helper()
	ctx := testContext(t)
	for i, want := range []guard.Outcome{guard.Applied, guard.Duplicate, guard.Duplicate} {
		out, err := h.Handle(ctx, []byte(body))
		if err != nil || out != want {
			t.Fatalf("delivery %d of %s = (%v, %v), want (%v, nil)", i+1, body, out, err, want)
		}
	}
}

// deliverConcurrently delivers body n times at once, as redeliveries racing
// on several workers do, and returns the answers.
func deliverConcurrently(t testing.TB, h handler, body string, n int) []result {
	t.Helper()
	ctx := testContext(t)
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			out, err := h.Handle(ctx, []byte(body))
			results[i] = result{out, err}
		})
	}
	close(start)
	wg.Wait()
	return results
}

// expectOneApplied checks that exactly one of the concurrent deliveries
// applied the effect and that the others were duplicates (or, for leases,
// found the key in progress when inProgressOK).
func expectOneApplied(t testing.TB, results []result, inProgressOK bool) {
	t.Helper()
	applied := 0
	for _, r := range results {
		switch {
		case r.err == nil && r.out == guard.Applied:
			applied++
		case r.err == nil && r.out == guard.Duplicate:
		case inProgressOK && errors.Is(r.err, guard.ErrInProgress):
		default:
			t.Errorf("concurrent delivery = (%v, %v), want applied or duplicate", r.out, r.err)
		}
	}
	if applied != 1 {
		t.Errorf("%d of %d concurrent deliveries applied the effect, want 1: %v", applied, len(results), results)
	}
}

// expectErr delivers body once and checks that the answer is an error
// matching target (and permanent when target is).
func expectErr(t testing.TB, h handler, body string, target error) {
	t.Helper()
	out, err := h.Handle(testContext(t), []byte(body))
	if !errors.Is(err, target) {
		t.Fatalf("delivery of %s = (%v, %v), want an error matching %q", body, out, err, target)
	}
	if guard.Permanent(target) && !guard.Permanent(err) {
		t.Errorf("delivery of %s: error %v is not permanent", body, err)
	}
}

// expectInvalid checks that each body is refused as guard.ErrInvalidMessage.
func expectInvalid(t testing.TB, h handler, bodies ...string) {
	t.Helper()
	for _, body := range bodies {
		expectErr(t, h, body, guard.ErrInvalidMessage)
	}
}

// expectApplied delivers body once and checks that it applied.
func expectApplied(t testing.TB, h handler, body string) {
	t.Helper()
	out, err := h.Handle(testContext(t), []byte(body))
	if err != nil || out != guard.Applied {
		t.Fatalf("delivery of %s = (%v, %v), want (applied, nil)", body, out, err)
	}
}

// expectDuplicate delivers body once and checks that it was a duplicate.
func expectDuplicate(t testing.TB, h handler, body string) {
	t.Helper()
	out, err := h.Handle(testContext(t), []byte(body))
	if err != nil || out != guard.Duplicate {
		t.Fatalf("delivery of %s = (%v, %v), want (duplicate, nil)", body, out, err)
	}
}

func expectInt(t testing.TB, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}
