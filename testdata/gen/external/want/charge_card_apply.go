package notify

import (
	"context"
	"errors"

	"github.com/idemkit/idem/guard"
)

// ChargeCard performs the external effect of m, a message of the charge_card
// consumer, while holding lease, which blocks duplicates for 2m. Pass
// lease.Key() to the provider as its idempotency key, call lease.Extend for
// calls that may outlast the lease, and lease.SetResult to store a result for
// later duplicates. Delivery is at-most-once: a lease that expires before it
// returns makes the key uncertain (guard.ErrUncertain), so the effect never
// runs twice. Any error keeps the key failed (on_error: keep): redeliveries get
// guard.ErrFailed.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even reduced
// to its package clause, if the method lives elsewhere.)
func (s *Service) ChargeCard(ctx context.Context, lease *guard.Lease, m *ChargeCard) error {
	// TODO: call the provider, with lease.Key() as its idempotency key.
	return guard.NotPerformed(errors.New("charge_card: effect not implemented"))
}
