package orders

import (
	"context"
	"errors"

	"github.com/idemkit/idem/guard"
)

// SendSms performs the external effect of m, a message of the send_sms
// consumer, while holding lease, which blocks duplicates for 30s. Pass
// lease.Key() to the provider as its idempotency key, call lease.Extend for
// calls that may outlast the lease, and lease.SetResult to store a result for
// later duplicates. Delivery is at-most-once: a lease that expires before it
// returns makes the key uncertain (guard.ErrUncertain), so the effect never
// runs twice. An error wrapped with guard.NotPerformed (the call certainly did
// not happen) releases the key for a redelivery; any other error makes it
// uncertain, since the call may have reached the provider; guard.Reject(err)
// keeps it failed.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) SendSms(ctx context.Context, lease *guard.Lease, m *SendSms) error {
	// TODO: call the provider, with lease.Key() as its idempotency key.
	return guard.NotPerformed(errors.New("send_sms: effect not implemented"))
}
