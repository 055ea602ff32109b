// Package pulsarx: Apache Pulsar consumers — Receive loops and Chan()
// channels; Ack/AckID settle, Nack redelivers.
package pulsarx

import (
	"context"
	"database/sql"

	"github.com/apache/pulsar-client-go/pulsar"

	"shop"
)

func naive(ctx context.Context, c pulsar.Consumer, db *sql.DB) error {
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			return err
		}
		o, _ := shop.Decode(m.Payload())
		if err := shop.DeductStock(ctx, db, o.SKU, o.Qty); err != nil { // want `effect shop.DeductStock .* in handler naive is not guarded by a dedup check`
			c.Nack(m)
			continue
		}
		shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
		c.Ack(m)                         // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
	}
}

func correct(ctx context.Context, c pulsar.Consumer, db *sql.DB) error {
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			return err
		}
		if err := handle(ctx, db, m); err != nil {
			c.Nack(m)
			continue
		}
		c.AckID(m.ID())
	}
}

func handle(ctx context.Context, db *sql.DB, m pulsar.Message) error {
	o, err := shop.Decode(m.Payload())
	if err != nil {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "orders", m.ID().String())
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

func channel(ctx context.Context, c pulsar.Consumer, db *sql.DB) {
	for cm := range c.Chan() {
		o, _ := shop.Decode(cm.Payload())
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			cm.Consumer.Nack(cm.Message)
			continue
		}
		cm.Consumer.Ack(cm.Message)
	}
}

func ackFirst(ctx context.Context, c pulsar.Consumer, db *sql.DB) error {
	m, err := c.Receive(ctx)
	if err != nil {
		return err
	}
	c.Ack(m) // want `IDEM002`
	o, _ := shop.Decode(m.Payload())
	return shop.BumpStats(ctx, db, o.Day, o.GMV) // want `IDEM001`
}
