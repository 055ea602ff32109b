// Package microx: go-micro broker subscriptions. A handler gets a
// broker.Event and is acked when it returns nil, unless DisableAutoAck is
// given (then Event.Ack acks).
package microx

import (
	"context"
	"database/sql"
	"encoding/json"

	"go-micro.dev/v4/broker"

	"shop"
)

func brokerHandler(db *sql.DB) broker.Handler {
	return func(e broker.Event) error {
		var o shop.Order
		if err := json.Unmarshal(e.Message().Body, &o); err != nil {
			return nil
		}
		return shop.DeductStock(context.Background(), db, o.SKU, o.Qty) // want `IDEM001`
	}
}

func subscribe(db *sql.DB) error {
	if _, err := broker.Subscribe("orders", brokerHandler(db)); err != nil {
		return err
	}
	_, err := broker.Subscribe("orders.manual", func(e broker.Event) error {
		var o shop.Order
		_ = json.Unmarshal(e.Message().Body, &o)
		_ = e.Ack()                                                   // want `IDEM002`
		return shop.BumpStats(context.Background(), db, o.Day, o.GMV) // want `IDEM001`
	}, broker.DisableAutoAck())
	return err
}
