package points

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	amqp "github.com/rabbitmq/amqp091-go"
)

var errBadBody = errors.New("points: bad body")

// settle is how drain settles one item.
type settle[T any] struct {
	ack     func(T) error
	requeue func(T) error
	drop    func(T) error
}

// drain runs handle on every item of in, one at a time, and settles it only
// after handle returned: ack on success, drop for poison, requeue otherwise.
func drain[T any](ctx context.Context, in <-chan T, handle func(context.Context, T) error, s settle[T], log *slog.Logger) {
	for item := range in {
		err := handle(ctx, item)
		var serr error
		switch {
		case err == nil:
			serr = s.ack(item)
		case errors.Is(err, errBadBody):
			serr = s.drop(item)
		default:
			log.Warn("requeue", "err", err)
			serr = s.requeue(item)
		}
		if serr != nil {
			log.Error("settle", "err", serr)
		}
	}
}

var amqpSettle = settle[amqp.Delivery]{
	ack:     func(d amqp.Delivery) error { return d.Ack(false) },
	requeue: func(d amqp.Delivery) error { return d.Nack(false, true) },
	drop:    func(d amqp.Delivery) error { return d.Reject(false) },
}

// Worker credits points in PostgreSQL; the loop is the generic drain.
type Worker struct {
	DB  *sql.DB
	Log *slog.Logger
}

// Start consumes with manual acks and passes the method value w.apply to
// the generic drain, which settles each delivery after apply returned.
//
// truth: ok
func (w *Worker) Start(ctx context.Context, ch *amqp.Channel) error {
	if err := ch.Qos(16, 0, false); err != nil {
		return err
	}
	deliveries, err := ch.ConsumeWithContext(ctx, "points.earned", "points-worker", false, false, false, false, nil)
	if err != nil {
		return err
	}
	drain(ctx, deliveries, w.apply, amqpSettle, w.Log)
	return nil
}

// apply credits one delivery: conditional UPDATE on the order row (awarded
// = false → true) decides, by rows affected, whether the increment runs in
// the same transaction.
//
// truth: ok
func (w *Worker) apply(ctx context.Context, d amqp.Delivery) error {
	ev, ok := parse(d)
	if !ok {
		return errBadBody
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	res, err := tx.ExecContext(ctx, `UPDATE orders SET points_awarded = true WHERE id = $1 AND points_awarded = false`, ev.OrderID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID); err != nil {
		return err
	}
	return tx.Commit()
}
