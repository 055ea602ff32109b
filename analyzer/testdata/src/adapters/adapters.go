// Package adapters: consumers wired through idem's broker adapters
// (guard/jetstreamguard, amqpguard, kafkaguard, watermillguard). The adapter
// acks by the guarded handler's answer and the handler's effects run behind
// the guard, so none of these is reported.
package adapters

import (
	"context"
	"database/sql"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/amqpguard"
	"github.com/idemkit/idem/guard/jetstreamguard"
	"github.com/idemkit/idem/guard/kafkaguard"
	"github.com/idemkit/idem/guard/watermillguard"
	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
)

// AddPoints stands for an idemgen-generated handler: its Handle claims the
// key and applies in one transaction.
type AddPoints struct{ DB *sql.DB }

func (h *AddPoints) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	return guard.Applied, nil
}

func points(db *sql.DB) guard.HandlerFunc {
	return func(ctx context.Context, body []byte) (guard.Outcome, error) {
		_, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, string(body))
		return guard.Applied, err
	}
}

func JetStreamConsume(ctx context.Context, c jetstream.Consumer, db *sql.DB) error {
	return jetstreamguard.Consume(ctx, c, guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		_, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, string(body))
		return guard.Applied, err
	}), jetstreamguard.WithAckWait(0))
}

func JetStreamHandler(c jetstream.Consumer, h *AddPoints) (jetstream.ConsumeContext, error) {
	return c.Consume(jetstreamguard.Handler(h))
}

func JetStreamHandle(ctx context.Context, c jetstream.Consumer, db *sql.DB) (jetstream.ConsumeContext, error) {
	return c.Consume(func(msg jetstream.Msg) {
		jetstreamguard.Handle(ctx, msg, guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
			_, err := db.ExecContext(ctx, `INSERT INTO audit (body) VALUES ($1)`, body)
			return guard.Applied, err
		}))
	})
}

func JetStreamHandleVar(ctx context.Context, c jetstream.Consumer, db *sql.DB) (jetstream.ConsumeContext, error) {
	h := points(db)
	return c.Consume(func(msg jetstream.Msg) {
		if jetstreamguard.Handle(ctx, msg, h) != jetstreamguard.Ack {
			return
		}
	})
}

func AMQPHandle(ctx context.Context, deliveries <-chan amqp.Delivery, db *sql.DB) {
	for d := range deliveries {
		amqpguard.Handle(ctx, d, guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
			_, err := db.ExecContext(ctx, `UPDATE stock SET qty = qty - 1 WHERE sku = $1`, string(body))
			return guard.Applied, err
		}))
	}
}

func AMQPConsume(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	return amqpguard.Consume(ctx, ch, "points", points(db), amqpguard.WithConcurrency(4))
}

func KafkaConsume(ctx context.Context, r kafkaguard.Reader, db *sql.DB) error {
	return kafkaguard.Consume(ctx, r, guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		_, err := db.ExecContext(ctx, `INSERT INTO daily_stats (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = daily_stats.n + 1`, string(body))
		return guard.Applied, err
	}))
}

func Watermill(r *message.Router, sub message.Subscriber, db *sql.DB) {
	r.AddNoPublisherHandler("points", "orders", sub, watermillguard.Handler(points(db)))
	r.AddNoPublisherHandler("audit", "orders", sub, watermillguard.Handler(guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		_, err := db.ExecContext(ctx, `INSERT INTO audit (body) VALUES ($1)`, body)
		return guard.Applied, err
	})))
}

// Wiring calls the functions above from a handler-free main: no effect
// reaches it through facts either.
func Wiring(ctx context.Context, c jetstream.Consumer, ch *amqp.Channel, r kafkaguard.Reader, db *sql.DB) {
	_ = JetStreamConsume(ctx, c, db)
	_ = AMQPConsume(ctx, ch, db)
	_ = KafkaConsume(ctx, r, db)
}

// A closure passed to something that is not an adapter still counts where
// it is made.
func NotAnAdapter(ctx context.Context, deliveries <-chan amqp.Delivery, db *sql.DB) {
	for d := range deliveries {
		run(func() { // want `effect func literal → sql.DB.ExecContext .* in handler NotAnAdapter is not guarded by a dedup check \(IDEM001\)`
			db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId)
		})
		_ = d.Ack(false)
	}
}

func run(f func()) { f() }
