// Package db is written the way sqlc generates code: a DBTX interface, a
// Queries struct and one method per named query.
package db

import (
	"context"
	"database/sql"
)

type DBTX interface {
	ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	PrepareContext(context.Context, string) (*sql.Stmt, error)
	QueryContext(context.Context, string, ...interface{}) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

func New(db DBTX) *Queries { return &Queries{db: db} }

type Queries struct{ db DBTX }

func (q *Queries) WithTx(tx *sql.Tx) *Queries { return &Queries{db: tx} }

const deductStock = `-- name: DeductStock :exec
UPDATE stock SET qty = qty - $1 WHERE sku = $2
`

func (q *Queries) DeductStock(ctx context.Context, qty int32, sku string) error {
	_, err := q.db.ExecContext(ctx, deductStock, qty, sku)
	return err
}

const addPoints = `-- name: AddPoints :exec
UPDATE users SET points = points + $1 WHERE id = $2
`

func (q *Queries) AddPoints(ctx context.Context, n int32, userID int64) error {
	_, err := q.db.ExecContext(ctx, addPoints, n, userID)
	return err
}

const setOrderStatus = `-- name: SetOrderStatus :exec
UPDATE orders SET status = $1 WHERE id = $2
`

func (q *Queries) SetOrderStatus(ctx context.Context, status, id string) error {
	_, err := q.db.ExecContext(ctx, setOrderStatus, status, id)
	return err
}

const markProcessed = `-- name: MarkProcessed :execrows
INSERT INTO processed_messages (consumer, msg_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
`

func (q *Queries) MarkProcessed(ctx context.Context, consumer, msgID string) (int64, error) {
	res, err := q.db.ExecContext(ctx, markProcessed, consumer, msgID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

const bumpDailyStats = `-- name: BumpDailyStats :exec
INSERT INTO daily_stats (day, orders, gmv) VALUES ($1, 1, $2)
ON CONFLICT (day) DO UPDATE SET orders = daily_stats.orders + 1, gmv = daily_stats.gmv + EXCLUDED.gmv
`

func (q *Queries) BumpDailyStats(ctx context.Context, day string, gmv int64) error {
	_, err := q.db.ExecContext(ctx, bumpDailyStats, day, gmv)
	return err
}

const upsertProfile = `-- name: UpsertProfile :exec
INSERT INTO profiles (id, name, email) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email
`

func (q *Queries) UpsertProfile(ctx context.Context, id, name, email string) error {
	_, err := q.db.ExecContext(ctx, upsertProfile, id, name, email)
	return err
}

const insertAudit = `-- name: InsertAudit :exec
INSERT INTO audit_log (event, payload) VALUES ($1, $2)
`

func (q *Queries) InsertAudit(ctx context.Context, event string, payload []byte) error {
	_, err := q.db.ExecContext(ctx, insertAudit, event, payload)
	return err
}
