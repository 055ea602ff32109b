// Package sqlcone: an INSERT … RETURNING in sqlc's :one style, run by
// QueryRow and failing at its Scan, whose duplicate key the service above
// it recognises by the error's text.
package sqlcone

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

type DBTX interface {
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

type Queries struct{ db DBTX }

type Coupon struct {
	Name   string
	Amount int32
}

const createCoupon = `-- name: CreateCoupon :one
INSERT INTO coupons (name, amount) VALUES ($1, $2) RETURNING name, amount
`

func (q *Queries) CreateCoupon(ctx context.Context, name string, amount int32) (Coupon, error) {
	row := q.db.QueryRowContext(ctx, createCoupon, name, amount)
	var c Coupon
	err := row.Scan(&c.Name, &c.Amount)
	return c, err
}

// ErrDuplicate is a coupon created before.
var ErrDuplicate = errors.New("coupon exists")

// Service creates coupons; a duplicate name is reported as ErrDuplicate.
type Service struct{ q *Queries }

func (s *Service) Create(ctx context.Context, name string, amount int32) error {
	if _, err := s.q.CreateCoupon(ctx, name, amount); err != nil {
		if strings.Contains(err.Error(), "duplicate key") {
			return ErrDuplicate
		}
		return err
	}
	return nil
}

// consume creates the coupon each record names: a repeat fails on the
// name's key and is answered as a duplicate.
func consume(ctx context.Context, cl *kgo.Client, s *Service) error {
	for {
		fetches := cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			if err := s.Create(ctx, string(r.Key), 1); err != nil && !errors.Is(err, ErrDuplicate) {
				return err
			}
		}
		if err := cl.CommitRecords(ctx, fetches.Records()...); err != nil {
			return err
		}
	}
}

// consumeUnchecked inserts without telling a duplicate from a failure: a
// repeat stops the consumer on the same record for ever.
func consumeUnchecked(ctx context.Context, cl *kgo.Client, q *Queries) error {
	for {
		fetches := cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			if _, err := q.CreateCoupon(ctx, string(r.Key), 1); err != nil { // want `effect sqlcone.Queries.CreateCoupon → .*INSERT INTO coupons.* in handler consumeUnchecked is not guarded by a dedup check \(IDEM001\)`
				return err
			}
		}
		if err := cl.CommitRecords(ctx, fetches.Records()...); err != nil {
			return err
		}
	}
}

func main() {
	cl, _ := kgo.NewClient(kgo.ConsumerGroup("coupons"), kgo.DisableAutoCommit())
	db, _ := sql.Open("postgres", "")
	q := &Queries{db: db}
	_ = consume(context.Background(), cl, &Service{q: q})
	_ = consumeUnchecked(context.Background(), cl, q)
}
