// Package ps: Google Cloud Pub/Sub Receive callbacks (v1 and v2).
package ps

import (
	"context"
	"database/sql"
	"log"

	"cloud.google.com/go/pubsub"
	pubsubv2 "cloud.google.com/go/pubsub/v2"

	"shop"
)

func naive(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		o, err := shop.Decode(m.Data)
		if err != nil {
			m.Ack()
			return
		}
		if err := shop.DeductStock(ctx, db, o.SKU, o.Qty); err != nil { // want `IDEM001`
			m.Nack()
			return
		}
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			m.Nack()
			return
		}
		if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
			m.Nack()
			return
		}
		if err := shop.BumpStats(ctx, db, o.Day, o.GMV); err != nil { // want `IDEM001`
			m.Nack()
			return
		}
		m.Ack()
	})
}

func correct(ctx context.Context, sub *pubsubv2.Subscriber, db *sql.DB) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsubv2.Message) {
		o, err := shop.Decode(m.Data)
		if err != nil {
			m.Ack()
			return
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			m.Nack()
			return
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "orders", m.ID)
		if err != nil {
			m.Nack()
			return
		}
		if fresh {
			if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
				m.Nack()
				return
			}
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				m.Nack()
				return
			}
			if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
				m.Nack()
				return
			}
			if err := tx.Commit(); err != nil {
				m.Nack()
				return
			}
		}
		m.Ack()
	})
}

func deferredAck(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		defer m.Ack() // want `deferred ack pubsub.Message.Ack in handler func literal in deferredAck also runs when handling fails`
		o, _ := shop.Decode(m.Data)
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			log.Print(err)
		}
	})
}

func ackFirst(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		m.Ack() // want `IDEM002`
		o, _ := shop.Decode(m.Data)
		shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
	})
}

func logOnly(ctx context.Context, sub *pubsub.Subscription) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		log.Printf("%s", m.Data)
		m.Ack()
	})
}

// nackThenAck naks a message whose step failed and falls through to the
// ack: the first of Nack and Ack wins, and the message is redelivered.
func nackThenAck(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		o, _ := shop.Decode(m.Data)
		if err := shop.SendSMS(ctx, o.Phone, "hi"); err != nil { // want `IDEM001`
			m.Nack()
		}
		m.Ack()
	})
}
