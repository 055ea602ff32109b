// Package kqx: go-zero go-queue Kafka consumers. A handler gets the key and
// the value, no message type: MustNewQueue/NewQueue and WithHandle make it
// one. The queue commits the offset whatever the handler returns: a
// returned failure is a lost message.
package kqx

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/zeromicro/go-queue/kq"

	"shop"
)

func decode(value string) shop.Order {
	var o shop.Order
	_ = json.Unmarshal([]byte(value), &o)
	return o
}

func start(c kq.KqConf, db *sql.DB) {
	q := kq.MustNewQueue(c, kq.WithHandle(func(ctx context.Context, key, value string) error {
		o := decode(value)
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* is not guarded by a dedup check`
			return err // want `returns when shop\.AddPoints fails, and its consumer commits the message whatever the handler returns: the message is lost \(IDEM003\)`
		}
		return shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001` `returns the error of shop\.SendSMS, and its consumer commits the message whatever the handler returns: when it fails the message is lost \(IDEM003\)`
	}))
	q.Start()
}

type Stock struct{ DB *sql.DB }

// Consume claims the key in the transaction of the deduction.
func (s *Stock) Consume(ctx context.Context, key, value string) error {
	o := decode(value)
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "stock", key)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err // want `returns when shop\.DeductStock fails, and its consumer commits the message whatever the handler returns: the message is lost \(IDEM003\)`
	}
	return tx.Commit()
}

var statsDB *sql.DB

func handleStats(ctx context.Context, key, value string) error {
	o := decode(value)
	return shop.BumpStats(ctx, statsDB, o.Day, o.GMV) // want `IDEM001` `returns the error of shop\.BumpStats, and its consumer commits the message whatever the handler returns: when it fails the message is lost \(IDEM003\)`
}

func startAll(c kq.KqConf, db *sql.DB) error {
	q, err := kq.NewQueue(c, &Stock{DB: db})
	if err != nil {
		return err
	}
	q.Start()
	kq.MustNewQueue(c, kq.WithHandle(handleStats)).Start()
	return nil
}
