// Package wm: watermill router handlers (acked by their return) and a raw
// subscriber loop.
package wm

import (
	"context"
	"database/sql"
	"log"

	"github.com/ThreeDotsLabs/watermill/message"

	"shop"
)

func NaiveDeduct(db *sql.DB) message.NoPublishHandlerFunc {
	return func(msg *message.Message) error {
		o, err := shop.Decode(msg.Payload)
		if err != nil {
			return err
		}
		return shop.DeductStock(msg.Context(), db, o.SKU, o.Qty) // want `IDEM001`
	}
}

func NaivePoints(db *sql.DB) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		o, _ := shop.Decode(msg.Payload)
		return nil, shop.AddPoints(msg.Context(), db, o.User, o.Qty) // want `IDEM001`
	}
}

func NaiveSMS(msg *message.Message) error {
	o, _ := shop.Decode(msg.Payload)
	return shop.SendSMS(msg.Context(), o.Phone, "hi") // want `IDEM001`
}

func NaiveStats(db *sql.DB) message.NoPublishHandlerFunc {
	return func(msg *message.Message) error {
		o, _ := shop.Decode(msg.Payload)
		if err := shop.BumpStats(msg.Context(), db, o.Day, o.GMV); err != nil { // want `IDEM001`
			log.Print(err)
			return nil // want `handler func literal in NaiveStats returns success when shop.BumpStats fails: the message is acked and lost \(IDEM003\)`
		}
		return nil
	}
}

func Correct(db *sql.DB) message.NoPublishHandlerFunc {
	return func(msg *message.Message) error {
		ctx := msg.Context()
		o, err := shop.Decode(msg.Payload)
		if err != nil {
			return nil // a poison message: dropped, no failure of the effect
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "orders", msg.UUID)
		if err != nil {
			return err
		}
		if !fresh {
			return nil
		}
		if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
			return err
		}
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return err
		}
		if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
			return err
		}
		return tx.Commit()
	}
}

func rawLoop(ctx context.Context, sub message.Subscriber, db *sql.DB) error {
	msgs, err := sub.Subscribe(ctx, "orders")
	if err != nil {
		return err
	}
	for msg := range msgs {
		o, _ := shop.Decode(msg.Payload)
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			msg.Nack()
			continue
		}
		msg.Ack()
	}
	return nil
}

func deferAck(ctx context.Context, db *sql.DB, msg *message.Message) {
	defer msg.Ack() // want `IDEM003`
	o, _ := shop.Decode(msg.Payload)
	shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
}
