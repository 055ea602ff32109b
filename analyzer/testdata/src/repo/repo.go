package repo // want package:"idemfacts"

// Package repo: repositories behind interfaces, annotated.

import "context"

type Orders interface {
	// Save upserts the order: idempotent, no annotation.
	Save(ctx context.Context, id string) error
	//idem:effect
	AddPoints(ctx context.Context, user string, n int) error // want AddPoints:`effects\(repo.Orders.AddPoints\)`
	//idem:dedup
	MarkProcessed(ctx context.Context, id string) (bool, error) // want MarkProcessed:`dedup\(result 0: true=duplicate, false=fresh\)`
	TryClaim(ctx context.Context, id string) (bool, error)
	Charge(ctx context.Context, user string, cents int) error
}

// Notify is an annotated effect function.
//
//idem:effect
func Notify(ctx context.Context, user string) error { return nil } // want Notify:`effects\(repo.Notify\)`
