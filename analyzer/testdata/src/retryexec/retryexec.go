package retryexec // want package:"idemfacts"

// A pool that retries each statement through a
// closure handed to backoff.Retry. The statement's text is the one the
// pool's caller passes: an INSERT … ON CONFLICT DO NOTHING is no effect,
// an increment is.

import (
	"context"
	"database/sql"

	"github.com/cenkalti/backoff/v4"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Pool retries statements.
type Pool struct{ db *sql.DB }

// Exec runs query, retrying a failed attempt.
func (p *Pool) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) { // want Exec:`effects\(func literal → sql.DB.ExecContext \(query text not constant\)\)`
	var res sql.Result
	err := backoff.Retry(func() error {
		var err error
		res, err = p.db.ExecContext(ctx, query, args...)
		return err
	}, backoff.NewExponentialBackOff())
	return res, err
}

// Record records the message in the inbox: a repeat inserts nothing.
func (p *Pool) Record(ctx context.Context, d amqp.Delivery) {
	if _, err := p.Exec(ctx, `INSERT INTO inbox (message_id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// Count adds to a counter: a repeat adds again.
func (p *Pool) Count(ctx context.Context, d amqp.Delivery) {
	if _, err := p.Exec(ctx, `UPDATE counters SET n = n + 1 WHERE id = $1`, d.MessageId); err != nil { // want `effect retryexec.Pool.Exec → func literal → sql.DB.ExecContext \(query text not constant\) "UPDATE counters SET n = n \+ 1 WHERE id = \$1" in handler Pool.Count is not guarded by a dedup check`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
