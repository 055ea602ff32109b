package walletsvc // want package:"idemfacts"

// Package walletsvc wraps the generated wallet client: the request is
// built here with the key its caller gives, so its callers decide.

import (
	"context"

	"grpcx/walletpb"
)

// Service credits wallets.
type Service struct{ Client walletpb.WalletClient }

// Credit credits the user's wallet under the caller's idempotency key.
func (s *Service) Credit(ctx context.Context, user, key string) error { // want Credit:`effects\(walletpb.WalletClient.Credit .*\)`
	_, err := s.Client.Credit(ctx, &walletpb.Req{User: user, IdempotencyKey: key})
	return err
}
