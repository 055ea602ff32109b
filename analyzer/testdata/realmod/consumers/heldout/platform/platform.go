// Package platform holds the shared plumbing the held-out consumers use:
// repositories, a Redis first-seen helper and Postgres error helpers.
package platform

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// StockRepo moves available stock.
type StockRepo interface {
	Deduct(ctx context.Context, sku string, qty int) error
	Restock(ctx context.Context, sku string, qty int) error
}

// PGStock is the PostgreSQL StockRepo.
type PGStock struct{ DB *sql.DB }

func (r *PGStock) Deduct(ctx context.Context, sku string, qty int) error {
	_, err := r.DB.ExecContext(ctx, `UPDATE inventory SET available = available - $1 WHERE sku = $2`, qty, sku)
	return err
}

func (r *PGStock) Restock(ctx context.Context, sku string, qty int) error {
	_, err := r.DB.ExecContext(ctx, `UPDATE inventory SET available = available + $1 WHERE sku = $2`, qty, sku)
	return err
}

// ClaimEvent records eventID for consumer inside tx and reports whether it
// was new. The caller applies its effect in the same tx only when it was.
func ClaimEvent(ctx context.Context, tx pgx.Tx, consumer, eventID string) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO consumed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, consumer, eventID)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// IsUniqueViolation reports whether err is a PostgreSQL unique violation.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// FirstSeen sets key with SET NX and reports whether this call set it.
func FirstSeen(ctx context.Context, rdb redis.Cmdable, key string, ttl time.Duration) (bool, error) {
	return rdb.SetNX(ctx, "seen:"+key, time.Now().Unix(), ttl).Result()
}

// Forget removes a key set by FirstSeen, so a failed attempt can be retried.
func Forget(ctx context.Context, rdb redis.Cmdable, key string) error {
	return rdb.Del(ctx, "seen:"+key).Err()
}

// NewRequestID returns a random request id.
func NewRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
