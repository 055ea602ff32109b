// Package rocket: RocketMQ push consumers (acked by returning ConsumeSuccess).
package rocket

import (
	"context"
	"database/sql"
	"log"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"shop"
)

func naive(c rocketmq.PushConsumer, db *sql.DB) error {
	return c.Subscribe("orders", consumer.MessageSelector{}, func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			o, _ := shop.Decode(m.Body)
			if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
				log.Print(err)
				return consumer.ConsumeSuccess, nil // want `IDEM003`
			}
		}
		return consumer.ConsumeSuccess, nil
	})
}

func correct(c rocketmq.PushConsumer, db *sql.DB) error {
	return c.Subscribe("orders", consumer.MessageSelector{}, func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			o, _ := shop.Decode(m.Body)
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return consumer.ConsumeRetryLater, err
			}
			fresh, err := shop.Claim(ctx, tx, "points", m.MsgId)
			if err != nil {
				tx.Rollback()
				return consumer.ConsumeRetryLater, err
			}
			if fresh {
				if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
					tx.Rollback()
					return consumer.ConsumeRetryLater, err
				}
			}
			if err := tx.Commit(); err != nil {
				return consumer.ConsumeRetryLater, err
			}
		}
		return consumer.ConsumeSuccess, nil
	})
}
