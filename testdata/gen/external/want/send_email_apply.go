package notify

import (
	"context"
	"errors"

	"github.com/idemkit/idem/guard"
)

// applySendEmail performs the external effect of m, a message of the send_email
// consumer, while holding lease, which blocks duplicates for 1.5s. Pass
// lease.Key() to the provider as its idempotency key, call lease.Extend for
// calls that may outlast the lease, and lease.SetResult to store a result for
// later duplicates. Delivery is at-least-once: a lease that expires before
// apply returns is taken over by a redelivery, which runs the effect again with
// the same lease.Key(). Any error keeps the key failed (on_error: keep):
// redeliveries get guard.ErrFailed.
//
// Wire it up with
//
//	h := NewSendEmailHandler(store, applySendEmail)
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even empty,
// if the function lives elsewhere.)
func applySendEmail(ctx context.Context, lease *guard.Lease, m *SendEmail) error {
	// TODO: call the provider, with lease.Key() as its idempotency key.
	return errors.New("send_email: apply not implemented")
}

// The handler's apply func type checks the signature of applySendEmail.
var _ SendEmailFunc = applySendEmail
