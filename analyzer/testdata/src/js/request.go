package js

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A NATS request-reply is a call to the service that answers it: an
// effect when its subject names a write, a query (a publish) otherwise.

// reserve asks the warehouse to create a reservation: a redelivery
// reserves again.
func reserve(nc *nats.Conn, msg jetstream.Msg) error {
	subject := fmt.Sprintf("warehouse.%s.reservation.create", string(msg.Data()))
	if _, err := nc.Request(subject, msg.Data(), 5*time.Second); err != nil { // want `effect nats.Conn.Request "warehouse.\*.reservation.create" in handler reserve is not guarded`
		return err
	}
	return msg.Ack()
}

// stockLevel asks the warehouse for its stock: a read.
func stockLevel(nc *nats.Conn, msg jetstream.Msg) error {
	if _, err := nc.Request("warehouse.stock.get", msg.Data(), time.Second); err != nil {
		return err
	}
	return msg.Ack()
}
