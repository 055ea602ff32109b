// Package natscore: core NATS subscriptions have no acks and no
// redelivery, so a handler of one runs at most once per message; the same
// callback on a JetStream subscription is redelivered.
package natscore

import (
	"context"
	"database/sql"

	"github.com/nats-io/nats.go"

	"shop"
)

type Service struct{ DB *sql.DB }

// Serve answers requests over core NATS: at most once.
func (s *Service) Serve(nc *nats.Conn) error {
	if _, err := nc.Subscribe("points.add", s.add); err != nil {
		return err
	}
	_, err := nc.QueueSubscribe("points.sms", "workers", func(m *nats.Msg) {
		o, _ := shop.Decode(m.Data)
		shop.SendSMS(context.Background(), o.Phone, "hi")
		m.Respond([]byte("ok"))
	})
	return err
}

func (s *Service) add(m *nats.Msg) {
	o, err := shop.Decode(m.Data)
	if err != nil {
		return
	}
	shop.AddPoints(context.Background(), s.DB, o.User, o.Qty)
	m.Respond([]byte("ok"))
}

// Durable subscribes the same kind of callback on JetStream, acking it by
// hand: a redelivery runs it again.
func (s *Service) Durable(js nats.JetStreamContext) error {
	_, err := js.Subscribe("points.durable", s.addDurable, nats.ManualAck())
	return err
}

func (s *Service) addDurable(m *nats.Msg) {
	o, err := shop.Decode(m.Data)
	if err != nil {
		m.Term()
		return
	}
	if err := shop.AddPoints(context.Background(), s.DB, o.User, o.Qty); err != nil { // want `IDEM001`
		m.Nak()
		return
	}
	m.Ack()
}
