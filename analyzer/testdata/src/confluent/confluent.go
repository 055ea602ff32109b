// Package confluent: confluent-kafka-go v2 read loops.
package confluent

import (
	"context"
	"database/sql"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"shop"
)

func naive(ctx context.Context, c *kafka.Consumer, db *sql.DB) error {
	for {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			continue
		}
		o, _ := shop.Decode(m.Value)
		shop.DeductStock(ctx, db, o.SKU, o.Qty) // want `IDEM001`
		shop.AddPoints(ctx, db, o.User, o.Qty)  // want `IDEM001`
		shop.SendSMS(ctx, o.Phone, "hi")        // want `IDEM001`
		shop.BumpStats(ctx, db, o.Day, o.GMV)   // want `IDEM001`
		c.CommitMessage(m)                      // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
	}
}

func correct(ctx context.Context, c *kafka.Consumer, db *sql.DB) error {
	for {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			continue
		}
		o, _ := shop.Decode(m.Value)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		fresh, err := shop.Claim(ctx, tx, "orders", string(m.Key))
		if err != nil {
			tx.Rollback()
			return err
		}
		if fresh {
			if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
				tx.Rollback()
				return err
			}
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				tx.Rollback()
				return err
			}
			if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		} else {
			tx.Rollback()
		}
		c.CommitMessage(m)
	}
}

func commitFirst(ctx context.Context, c *kafka.Consumer, db *sql.DB) error {
	for {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			continue
		}
		c.CommitMessage(m) // want `IDEM002`
		o, _ := shop.Decode(m.Value)
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
}

// enable.auto.commit defaults to true: offsets are committed as read.
func autoCommit(ctx context.Context, db *sql.DB) error {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": "localhost", "group.id": "points"})
	if err != nil {
		return err
	}
	for {
		m, err := c.ReadMessage(time.Second) // want `auto-ack consumer kafka.Consumer.ReadMessage \(commits by itself\)`
		if err != nil {
			continue
		}
		o, _ := shop.Decode(m.Value)
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
}

func manualCommit(ctx context.Context, db *sql.DB) error {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": "localhost", "group.id": "points", "enable.auto.commit": false})
	if err != nil {
		return err
	}
	for {
		m, err := c.ReadMessage(time.Second)
		if err != nil {
			continue
		}
		o, _ := shop.Decode(m.Value)
		if err := shop.SetPhone(ctx, db, o.User, o.Phone); err != nil {
			return err
		}
		c.CommitMessage(m)
	}
}
