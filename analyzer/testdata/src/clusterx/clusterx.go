// Package clusterx: bsm/sarama-cluster consumers (a select loop over the
// consumer's channels, MarkOffset as the ack).
package clusterx

import (
	"context"
	"database/sql"
	"log"

	cluster "github.com/bsm/sarama-cluster"

	"shop"
)

func markFirst(ctx context.Context, c *cluster.Consumer, db *sql.DB) {
	for {
		select {
		case err := <-c.Errors():
			log.Printf("consumer error: %v", err)
		case msg, ok := <-c.Messages():
			if !ok {
				return
			}
			c.MarkOffset(msg, "") // want `IDEM002`
			o, err := shop.Decode(msg.Value)
			if err != nil {
				continue
			}
			if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001` `markFirst goes on to the next message when shop.AddPoints fails`
				log.Printf("points: %v", err)
			}
		}
	}
}

func markAfter(ctx context.Context, c *cluster.Consumer, db *sql.DB) {
	for msg := range c.Messages() {
		o, err := shop.Decode(msg.Value)
		if err != nil {
			c.MarkOffset(msg, "")
			continue
		}
		if err := shop.SetPhone(ctx, db, o.User, o.Phone); err != nil {
			return
		}
		c.MarkOffset(msg, "")
	}
}
