package notify

import (
	"context"
	"errors"

	"github.com/idemkit/idem/guard"
)

// SendEmail performs the external effect of m, a message of the send_email
// consumer, while holding lease, which blocks duplicates for 1.5s. Pass
// lease.Key() to the provider as its idempotency key, call lease.Extend for
// calls that may outlast the lease, and lease.SetResult to store a result for
// later duplicates. Delivery is at-least-once: a lease that expires before it
// returns is taken over by a redelivery, which runs the effect again with the
// same lease.Key(). Any error keeps the key failed (on_error: keep):
// redeliveries get guard.ErrFailed.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) SendEmail(ctx context.Context, lease *guard.Lease, m *SendEmail) error {
	// TODO: call the provider, with lease.Key() as its idempotency key.
	return guard.NotPerformed(errors.New("send_email: effect not implemented"))
}
