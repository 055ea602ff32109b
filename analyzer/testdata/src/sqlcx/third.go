package sqlcx

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"

	"github.com/jackc/pgx/v5/pgconn"
	amqp "github.com/rabbitmq/amqp091-go"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
)

// What the third held-out set found, as cases.

// deductOnce claims the order with a plain INSERT whose unique violation is
// the duplicate answer; its results are named and it defers the rollback,
// so SSA keeps err in memory.
func deductOnce(ctx context.Context, db *sql.DB, id string) (dup bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO processed_orders (order_id) VALUES ($1)`, id)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - 1 WHERE sku = $1`, id); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

func uniqueInHelper(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	if _, err := deductOnce(ctx, db, d.MessageId); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// Calling a guard.Handler and acking whatever it answers.
func swallowHandler(ctx context.Context, h guard.Handler, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		if _, err := h.Handle(ctx, d.Body); err != nil {
			log.Print(err)
		}
		_ = d.Ack(false) // want `ack amqp091.Delivery.Ack in handler swallowHandler also runs when guard.Handler.Handle fails: the error is swallowed and the message lost \(IDEM003\)`
	}
}

// A helper fetches the next message: the loop that calls it is a handler.
func fetchEvent(ctx context.Context, r *kafkago.Reader) (kafkago.Message, Event, bool, error) {
	m, err := r.FetchMessage(ctx)
	if err != nil {
		return m, Event{}, false, err
	}
	var e Event
	if err := json.Unmarshal(m.Value, &e); err != nil {
		return m, e, false, nil
	}
	return m, e, true, nil
}

func (w *Worker) fetchViaHelper(ctx context.Context, r *kafkago.Reader) error {
	for {
		m, e, ok, err := fetchEvent(ctx, r)
		if err != nil {
			return err
		}
		if ok {
			if err := w.Q.AddPoints(ctx, int32(e.Amount), e.UserID); err != nil { // want `effect sqlcx.Queries.AddPoints → .* in handler Worker.fetchViaHelper is not guarded by a dedup check \(IDEM001\)`
				return err
			}
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			return err
		}
	}
}

// A flag the statement sets and tests: UPDATE … WHERE NOT counted.
func (w *Worker) flagOnce(ctx context.Context, d amqp.Delivery) error {
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE orders SET counted = true WHERE id = $1 AND NOT counted`, d.MessageId)
	if err != nil {
		return d.Nack(false, true)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return d.Ack(false)
	}
	if err := w.Q.WithTx(tx).AddPoints(ctx, 1, 1); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// What the fourth held-out set found, as cases.

// A checkpoint upsert that only moves forward decides, in the effect's
// transaction.
func (w *Worker) checkpointed(ctx context.Context, d amqp.Delivery, pos int64) error {
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (name, pos) VALUES ('revenue', $1)
		ON CONFLICT (name) DO UPDATE SET pos = EXCLUDED.pos WHERE checkpoints.pos < EXCLUDED.pos`, pos)
	if err != nil {
		return d.Nack(false, true)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return d.Ack(false)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE revenue SET total = total + $1`, pos); err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// The record through a repository on the pool, the effect straight on the
// pool: two transactions.
func (w *Worker) recordThenPool(ctx context.Context, d amqp.Delivery) error {
	n, err := w.Q.MarkProcessed(ctx, "payouts", d.MessageId)
	if err != nil || n == 0 {
		return d.Ack(false)
	}
	if _, err := w.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance - 1 WHERE id = $1`, d.MessageId); err != nil { // want `dedup record sqlcx.Queries.MarkProcessed and effect sql.DB.ExecContext "UPDATE accounts .*" in handler Worker.recordThenPool are in different transactions: .*\(IDEM006\)`
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
