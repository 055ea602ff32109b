// Package daprx: Dapr topic event handlers. A nil error is SUCCESS;
// (true, err) asks for a retry, (false, err) drops the event.
package daprx

import (
	"context"
	"database/sql"

	"github.com/dapr/go-sdk/service/common"

	"shop"
)

type Points struct{ DB *sql.DB }

func (p *Points) OnOrder(ctx context.Context, e *common.TopicEvent) (retry bool, err error) {
	var o shop.Order
	if err := e.Struct(&o); err != nil {
		return false, err
	}
	if err := shop.AddPoints(ctx, p.DB, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler Points.OnOrder is not guarded by a dedup check`
		return true, err
	}
	return false, nil
}

func stock(db *sql.DB) common.TopicEventHandler {
	return func(ctx context.Context, e *common.TopicEvent) (bool, error) {
		var o shop.Order
		if err := e.Struct(&o); err != nil {
			return false, err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return true, err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "stock", e.ID)
		if err != nil {
			return true, err
		}
		if !fresh {
			return false, nil
		}
		if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
			return true, err
		}
		return false, tx.Commit()
	}
}

func register(s common.Service, db *sql.DB) error {
	p := &Points{DB: db}
	if err := s.AddTopicEventHandler(&common.Subscription{PubsubName: "ps", Topic: "orders", Route: "/points"}, p.OnOrder); err != nil {
		return err
	}
	if err := s.AddTopicEventHandler(&common.Subscription{PubsubName: "ps", Topic: "orders", Route: "/stock"}, stock(db)); err != nil {
		return err
	}
	return s.AddTopicEventHandler(&common.Subscription{PubsubName: "ps", Topic: "orders", Route: "/sms"}, func(ctx context.Context, e *common.TopicEvent) (bool, error) {
		var o shop.Order
		_ = e.Struct(&o)
		return false, shop.SendSMS(ctx, o.Phone, "hi") // want `IDEM001`
	})
}
