package pgxguard

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/guard"
)

var _ guard.Operator = (*Store)(nil)

// querier is what the operators' listing and statistics (guard.Operator)
// need of the pool besides DB; *pgxpool.Pool and *pgx.Conn have it.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Query implements guard.SQLQuerier when the DB has Query.
func (b backend) Query(ctx context.Context, q string, args ...any) (guard.SQLRows, error) {
	qr, ok := b.db.(querier)
	if !ok {
		return nil, fmt.Errorf("pgxguard: %T has no Query method, which listing records needs", b.db)
	}
	rows, err := qr.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}
