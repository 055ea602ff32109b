// Package nsqx: NSQ handlers (go-nsq). A handler returning nil FINs the
// message, an error REQs it; Finish and Requeue settle it by hand.
package nsqx

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"

	"github.com/nsqio/go-nsq"
	"github.com/redis/go-redis/v9"

	"shop"
)

type Points struct{ DB *sql.DB }

func (h *Points) HandleMessage(m *nsq.Message) error {
	ctx := context.Background()
	o, err := shop.Decode(m.Body)
	if err != nil {
		return nil // poison: FIN
	}
	if err := shop.AddPoints(ctx, h.DB, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler Points.HandleMessage is not guarded by a dedup check`
		return err
	}
	return shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
}

// guarded claims the message id in the transaction of its effects.
func guarded(db *sql.DB) nsq.HandlerFunc {
	return func(m *nsq.Message) error {
		ctx := context.Background()
		o, err := shop.Decode(m.Body)
		if err != nil {
			return nil
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "points", string(m.ID[:]))
		if err != nil {
			return err
		}
		if !fresh {
			return nil
		}
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return err
		}
		return tx.Commit()
	}
}

func swallow(m *nsq.Message) error {
	o, _ := shop.Decode(m.Body)
	if err := shop.SendSMS(context.Background(), o.Phone, "hi"); err != nil { // want `IDEM001`
		log.Print(err)
		return nil // want `handler swallow returns nil when shop.SendSMS fails, and its dispatcher acks on that`
	}
	return nil
}

func finishFirst(db *sql.DB) nsq.HandlerFunc {
	return func(m *nsq.Message) error {
		m.DisableAutoResponse()
		o, _ := shop.Decode(m.Body)
		m.Finish()                                                                       // want `IDEM002`
		if err := shop.DeductStock(context.Background(), db, o.SKU, o.Qty); err != nil { // want `IDEM001`
			m.Requeue(time.Second)
			return err
		}
		return nil
	}
}

// attemptsKey dedups on the attempt count, which changes on every
// redelivery: no dedup at all.
func attemptsKey(rdb *redis.Client) nsq.HandlerFunc {
	return func(m *nsq.Message) error {
		ctx := context.Background()
		o, _ := shop.Decode(m.Body)
		ok, err := rdb.SetNX(ctx, fmt.Sprintf("seen:%s:%d", o.ID, m.Attempts), 1, time.Hour).Result()
		if err != nil || !ok {
			return err
		}
		return shop.SendSMS(ctx, o.Phone, "hi") // want `its key is built from go-nsq.Message.Attempts, which differs on every delivery`
	}
}

func start(db *sql.DB) error {
	c, err := nsq.NewConsumer("orders", "points", nsq.NewConfig())
	if err != nil {
		return err
	}
	c.AddHandler(&Points{DB: db})
	c.AddConcurrentHandlers(guarded(db), 4)
	c.AddHandler(nsq.HandlerFunc(swallow))
	c.AddHandler(nsq.HandlerFunc(func(m *nsq.Message) error {
		o, _ := shop.Decode(m.Body)
		return shop.BumpStats(context.Background(), db, o.Day, o.GMV) // want `IDEM001`
	}))
	return c.ConnectToNSQLookupd("127.0.0.1:4161")
}
