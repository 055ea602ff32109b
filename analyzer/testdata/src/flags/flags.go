// Package flags: interfaces, annotations and the flags (run with -strict,
// -publish, -effects, -dedup, -acks and -iface=verbs set).
package flags

import (
	"context"
	"database/sql"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"

	"repo"
)

func annotated(ctx context.Context, r repo.Orders, d amqp.Delivery) error {
	if err := r.Save(ctx, d.MessageId); err != nil {
		return err
	}
	if err := r.AddPoints(ctx, d.UserId, 10); err != nil { // want `effect repo.Orders.AddPoints in handler annotated`
		return err
	}
	return d.Ack(false)
}

func annotatedDedup(ctx context.Context, r repo.Orders, d amqp.Delivery) error {
	seen, err := r.MarkProcessed(ctx, d.MessageId)
	if err != nil {
		return err
	}
	if seen {
		return d.Ack(false)
	}
	if err := r.AddPoints(ctx, d.UserId, 10); err != nil {
		return err
	}
	if err := repo.Notify(ctx, d.UserId); err != nil {
		return err
	}
	return d.Ack(false)
}

func annotatedFunc(ctx context.Context, d amqp.Delivery) error {
	return repo.Notify(ctx, d.UserId) // want `effect repo.Notify in handler annotatedFunc`
}

// -iface=verbs: Charge is named like a write.
func verbs(ctx context.Context, r repo.Orders, d amqp.Delivery) error {
	return r.Charge(ctx, d.UserId, 100) // want `effect repo.Orders.Charge \(interface method named like a write\) in handler verbs`
}

// -dedup names TryClaim (true = fresh).
func flagDedup(ctx context.Context, r repo.Orders, d amqp.Delivery) error {
	ok, err := r.TryClaim(ctx, d.MessageId)
	if err != nil || !ok {
		return err
	}
	return r.Charge(ctx, d.UserId, 100)
}

type Ledger struct{ db *sql.DB }

// -effects names Ledger.Append.
func (l *Ledger) Append(ctx context.Context, id string) error { return nil }

func flagEffect(ctx context.Context, l *Ledger, d amqp.Delivery) error {
	return l.Append(ctx, d.MessageId) // want `effect flags.Ledger.Append in handler flagEffect`
}

// -acks names settle.
func settle(d amqp.Delivery) { d.Ack(false) }

func flagAck(ctx context.Context, l *Ledger, d amqp.Delivery) error {
	settle(d)                         // want `ack flags.settle in handler flagAck comes before`
	return l.Append(ctx, d.MessageId) // want `IDEM001`
}

// -publish: publishing is an effect.
func publish(ctx context.Context, ch *amqp.Channel, d amqp.Delivery) error {
	return ch.PublishWithContext(ctx, "", "audit", false, false, amqp.Publishing{Body: d.Body}) // want `effect amqp091.Channel.PublishWithContext in handler publish`
}

// -strict: check-then-act.
func lookupThenAct(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	tx, _ := db.BeginTx(ctx, nil)
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM processed WHERE id = $1`, d.MessageId).Scan(&one) // want `check-then-act dedup sql.Tx.QueryRowContext .* in handler lookupThenAct is racy.*\(IDEM005\)`
	if err == nil {
		return d.Ack(false)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, d.MessageId)
	tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.UserId)
	tx.Commit()
	return d.Ack(false)
}

// -strict: a Redis lookup, then the effect, then the key recorded.
func redisLookupThenAct(ctx context.Context, rdb *redis.Client, l *Ledger, d amqp.Delivery) error {
	n, err := rdb.Exists(ctx, "seen:"+d.MessageId).Result() // want `check-then-act dedup redis.Client.Exists in handler redisLookupThenAct is racy`
	if err != nil {
		return err
	}
	if n > 0 {
		return d.Ack(false)
	}
	if err := l.Append(ctx, d.MessageId); err != nil {
		return err
	}
	rdb.Set(ctx, "seen:"+d.MessageId, 1, 0)
	return d.Ack(false)
}
