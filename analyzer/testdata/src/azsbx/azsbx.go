// Package azsbx: Azure Service Bus receivers (peek-lock): CompleteMessage
// settles, AbandonMessage and DeadLetterMessage give the message back.
package azsbx

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/redis/go-redis/v9"

	"shop"
)

func naive(ctx context.Context, r *azservicebus.Receiver, db *sql.DB) error {
	for {
		msgs, err := r.ReceiveMessages(ctx, 10, nil)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			o, _ := shop.Decode(m.Body)
			if err := shop.DeductStock(ctx, db, o.SKU, o.Qty); err != nil { // want `effect shop.DeductStock .* in handler naive is not guarded by a dedup check`
				r.AbandonMessage(ctx, m, nil)
				continue
			}
			shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
			r.CompleteMessage(ctx, m, nil)   // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
		}
	}
}

func correct(ctx context.Context, r *azservicebus.Receiver, db *sql.DB) error {
	for {
		msgs, err := r.ReceiveMessages(ctx, 10, nil)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := handle(ctx, db, m); err != nil {
				r.AbandonMessage(ctx, m, nil)
				continue
			}
			r.CompleteMessage(ctx, m, nil)
		}
	}
}

func handle(ctx context.Context, db *sql.DB, m *azservicebus.ReceivedMessage) error {
	o, err := shop.Decode(m.Body)
	if err != nil {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "stock", m.MessageID)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

func completeFirst(ctx context.Context, r *azservicebus.Receiver, db *sql.DB, m *azservicebus.ReceivedMessage) error {
	if err := r.CompleteMessage(ctx, m, nil); err != nil { // want `IDEM002`
		return err
	}
	o, _ := shop.Decode(m.Body)
	return shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
}

// lockTokenKey dedups on the lock token, new on every delivery.
func lockTokenKey(ctx context.Context, rdb *redis.Client, r *azservicebus.Receiver, m *azservicebus.ReceivedMessage) error {
	ok, err := rdb.SetNX(ctx, fmt.Sprintf("seen:%x", m.LockToken), 1, time.Hour).Result()
	if err != nil {
		return err
	}
	if ok {
		o, _ := shop.Decode(m.Body)
		shop.SendSMS(ctx, o.Phone, "hi") // want `its key is built from azservicebus.ReceivedMessage.LockToken, which differs on every delivery`
	}
	return r.CompleteMessage(ctx, m, nil) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}
