package guard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

func TestPermanent(t *testing.T) {
	permanent := []error{guard.ErrKeyConflict, guard.ErrFailed, guard.ErrUncertain, guard.ErrLeaseLost,
		guard.ErrPartialEffect, guard.ErrInvalidMessage, guard.ErrEmptyKey}
	for _, err := range permanent {
		for _, e := range []error{err, fmt.Errorf("handler: %w", err), errors.Join(errors.New("other"), err)} {
			if !guard.Permanent(e) {
				t.Errorf("Permanent(%v) = false, want true", e)
			}
		}
	}
	transient := []error{nil, guard.ErrInProgress, &guard.InProgressError{Consumer: "c", RetryAfter: time.Second},
		fmt.Errorf("wrapped: %w", &guard.InProgressError{}), context.Canceled, context.DeadlineExceeded,
		errors.New("connection refused"), guard.NotPerformed(errors.New("refused"))}
	for _, err := range transient {
		if guard.Permanent(err) {
			t.Errorf("Permanent(%v) = true, want false", err)
		}
	}
}

func TestInProgressError(t *testing.T) {
	var err error = fmt.Errorf("claim: %w", &guard.InProgressError{Consumer: "send_sms", RetryAfter: 1500 * time.Millisecond})
	if !errors.Is(err, guard.ErrInProgress) {
		t.Error("errors.Is(*InProgressError, ErrInProgress) = false")
	}
	var ip *guard.InProgressError
	if !errors.As(err, &ip) || ip.RetryAfter != 1500*time.Millisecond || ip.Consumer != "send_sms" {
		t.Errorf("errors.As = %+v", ip)
	}
	for _, want := range []string{"send_sms", "1.5s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if errors.Is(err, guard.ErrFailed) {
		t.Error("an InProgressError is ErrFailed")
	}
}

func TestRejectAndNotPerformed(t *testing.T) {
	cause := errors.New("out of stock")
	if guard.Reject(nil) != nil || guard.NotPerformed(nil) != nil {
		t.Fatal("Reject(nil) or NotPerformed(nil) is not nil")
	}
	r := fmt.Errorf("apply: %w", guard.Reject(cause))
	if !guard.IsRejected(r) || !errors.Is(r, cause) || guard.IsNotPerformed(r) {
		t.Errorf("Reject: IsRejected %t, Is cause %t, IsNotPerformed %t", guard.IsRejected(r), errors.Is(r, cause), guard.IsNotPerformed(r))
	}
	if !strings.Contains(r.Error(), "out of stock") {
		t.Errorf("Reject message %q lacks the cause", r)
	}
	n := fmt.Errorf("call: %w", guard.NotPerformed(cause))
	if !guard.IsNotPerformed(n) || !errors.Is(n, cause) || guard.IsRejected(n) {
		t.Errorf("NotPerformed: IsNotPerformed %t, Is cause %t, IsRejected %t", guard.IsNotPerformed(n), errors.Is(n, cause), guard.IsRejected(n))
	}
	if guard.NotPerformed(cause).Error() != cause.Error() {
		t.Errorf("NotPerformed changed the message to %q", guard.NotPerformed(cause))
	}
	if guard.IsRejected(cause) || guard.IsNotPerformed(cause) || guard.IsRejected(nil) {
		t.Error("a plain error counts as rejected or not performed")
	}
}
