package orders

import (
	"context"
	"errors"

	"github.com/idemkit/idem/guard"
)

// applySendSms performs the external effect of m, a message of the send_sms
// consumer, while holding lease, which blocks duplicates for 30s. Pass
// lease.Key() to the provider as its idempotency key, call lease.Extend for
// calls that may outlast the lease, and lease.SetResult to store a result for
// later duplicates. Delivery is at-most-once: a lease that expires before apply
// returns makes the key uncertain (guard.ErrUncertain), so the effect never
// runs twice. An error wrapped with guard.NotPerformed (the call certainly did
// not happen) releases the key for a redelivery; any other error makes it
// uncertain, since the call may have reached the provider; guard.Reject(err)
// keeps it failed.
//
// Wire it up with
//
//	h := NewSendSmsHandler(store, applySendSms)
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// (If it is deleted, idemgen writes the stub again; keep the file, even empty,
// if the function lives elsewhere.)
func applySendSms(ctx context.Context, lease *guard.Lease, m *SendSms) error {
	// TODO: call the provider, with lease.Key() as its idempotency key.
	return errors.New("send_sms: apply not implemented")
}

// The handler's apply func type checks the signature of applySendSms.
var _ SendSmsFunc = applySendSms
