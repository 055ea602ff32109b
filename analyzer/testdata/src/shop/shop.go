package shop // want package:"idemfacts"

// Package shop holds helpers used by handlers in other packages: effects,
// a dedup helper and an adapter, reaching the handlers through facts.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"smsdk"
)

type Order struct {
	ID    string `json:"id"`
	SKU   string `json:"sku"`
	Qty   int    `json:"qty"`
	User  string `json:"user"`
	Phone string `json:"phone"`
	Day   string `json:"day"`
	GMV   int    `json:"gmv"`
}

func Decode(b []byte) (Order, error) {
	var o Order
	err := json.Unmarshal(b, &o)
	return o, err
}

// DBTX is sqlc's interface.
type DBTX interface {
	ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

func DeductStock(ctx context.Context, tx DBTX, sku string, qty int) error { // want DeductStock:`effects\(shop.DBTX.ExecContext "UPDATE stock SET qty = qty - \$1 WHERE sku = \$2"\)`
	_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, qty, sku)
	return err
}

func AddPoints(ctx context.Context, tx DBTX, user string, n int) error { // want AddPoints:`effects\(shop.DBTX.ExecContext "UPDATE users SET points = points \+ \$1 WHERE id = \$2"\)`
	_, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user)
	return err
}

func BumpStats(ctx context.Context, tx DBTX, day string, gmv int) error { // want BumpStats:`effects\(shop.DBTX.ExecContext "INSERT INTO daily_stats .*"\)`
	_, err := tx.ExecContext(ctx, `INSERT INTO daily_stats (day, orders, gmv) VALUES ($1, 1, $2)
		ON CONFLICT (day) DO UPDATE SET orders = daily_stats.orders + 1, gmv = daily_stats.gmv + EXCLUDED.gmv`, day, gmv)
	return err
}

func SetPhone(ctx context.Context, tx DBTX, user, phone string) error {
	_, err := tx.ExecContext(ctx, `UPDATE users SET phone = $1 WHERE id = $2`, phone, user)
	return err
}

var SMS = &smsdk.Client{}

func SendSMS(ctx context.Context, phone, text string) error { // want SendSMS:`effects\(smsdk.Client.Send → http.Client.Do POST\)`
	return SMS.Send(ctx, phone, text)
}

// Claim inserts the dedup record: true when the key is fresh.
func Claim(ctx context.Context, tx DBTX, consumer, key string) (bool, error) { // want Claim:`dedup\(result 0: true=fresh, false=duplicate\)`
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (consumer, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, consumer, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	return true, nil
}

var ErrSeen = errors.New("seen")

// MarkSeen returns nil only for a fresh key.
func MarkSeen(ctx context.Context, rdb *redis.Client, key string) error { // want MarkSeen:`dedup\(result 0: nil=fresh\)`
	ok, err := rdb.SetNX(ctx, "seen:"+key, 1, 0).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrSeen
	}
	return nil
}

// Once runs fn only the first time key is seen.
func Once(ctx context.Context, rdb *redis.Client, key string, fn func(context.Context) error) error { // want Once:`guarded\(param 3\)`
	ok, err := rdb.SetNX(ctx, "once:"+key, 1, 0).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	return fn(ctx)
}

// Exec runs a statement: its callers' constant text decides.
func Exec(ctx context.Context, db *sql.DB, q string, args ...any) error { // want Exec:`effects\(sql.DB.ExecContext \(query text not constant\)\)`
	_, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	return nil
}

// InsertProcessed returns the error of a plain insert: callers test it for
// a unique violation.
func InsertProcessed(ctx context.Context, tx DBTX, id string) error { // want InsertProcessed:`effects\(shop.DBTX.ExecContext "INSERT INTO processed \(id\) VALUES \(\$1\)"\)`
	_, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, id)
	return err
}
