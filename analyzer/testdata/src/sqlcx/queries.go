// Package sqlcx: code in sqlc's style (a DBTX interface, a Queries struct,
// one method per query), a provider SDK whose Idempotency-Key header is
// optional, and goroutines that run guarded work.
package sqlcx

import (
	"context"
	"database/sql"
)

type DBTX interface {
	ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

func New(db DBTX) *Queries { return &Queries{db: db} }

type Queries struct{ db DBTX }

func (q *Queries) WithTx(tx *sql.Tx) *Queries { return &Queries{db: tx} }

const markProcessed = `-- name: MarkProcessed :execrows
INSERT INTO processed_messages (consumer, msg_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
`

// MarkProcessed returns the rows affected: 1 for a fresh message, 0 for a repeat.
func (q *Queries) MarkProcessed(ctx context.Context, consumer, msgID string) (int64, error) { // want MarkProcessed:`dedup\(result 0: >0=fresh, 0=duplicate\)`
	res, err := q.db.ExecContext(ctx, markProcessed, consumer, msgID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Processed counts rows but is no dedup: its value is a sum.
func (q *Queries) Processed(ctx context.Context, consumer string) (int64, error) {
	var n int64
	err := q.db.QueryRowContext(ctx, `SELECT count(*) FROM processed_messages WHERE consumer = $1`, consumer).Scan(&n)
	return n + 1, err
}

const addPoints = `-- name: AddPoints :exec
UPDATE users SET points = points + $1 WHERE id = $2
`

func (q *Queries) AddPoints(ctx context.Context, n int32, userID int64) error { // want AddPoints:`effects\(sqlcx.DBTX.ExecContext "-- name: AddPoints :exec UPDATE users SET points = points \+ \$1 …"\)`
	_, err := q.db.ExecContext(ctx, addPoints, n, userID)
	return err
}
