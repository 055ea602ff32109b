// Package gocloudx: Go CDK pub/sub (gocloud.dev/pubsub) receive loops.
package gocloudx

import (
	"context"
	"database/sql"

	"gocloud.dev/pubsub"

	"shop"
)

func naive(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	for {
		m, err := sub.Receive(ctx)
		if err != nil {
			return err
		}
		o, _ := shop.Decode(m.Body)
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler naive is not guarded by a dedup check`
			if m.Nackable() {
				m.Nack()
			}
			continue
		}
		m.Ack()
	}
}

func correct(ctx context.Context, sub *pubsub.Subscription, db *sql.DB) error {
	for {
		m, err := sub.Receive(ctx)
		if err != nil {
			return err
		}
		o, err := shop.Decode(m.Body)
		if err != nil {
			m.Ack()
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			m.Nack()
			continue
		}
		fresh, err := shop.Claim(ctx, tx, "points", m.LoggableID)
		if err != nil {
			tx.Rollback()
			m.Nack()
			continue
		}
		if fresh {
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				tx.Rollback()
				m.Nack()
				continue
			}
		}
		if err := tx.Commit(); err != nil {
			m.Nack()
			continue
		}
		m.Ack()
	}
}

func handler(ctx context.Context, m *pubsub.Message) error {
	o, _ := shop.Decode(m.Body)
	m.Ack()                                 // want `IDEM002`
	return shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
}
