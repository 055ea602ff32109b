// Package mqttx: MQTT subscribers (eclipse/paho.mqtt.golang, and
// eclipse/paho.golang for MQTT 5). A QoS 1 PUBLISH comes again until the
// client's PUBACK, sent when the callback returns.
package mqttx

import (
	"context"
	"database/sql"

	"github.com/eclipse/paho.golang/paho"
	mqtt "github.com/eclipse/paho.mqtt.golang"

	"shop"
)

type Meter struct{ DB *sql.DB }

// Subscribe adds points for every reading, with nothing to tell a
// redelivered PUBLISH from a new one.
func (m *Meter) Subscribe(c mqtt.Client) {
	c.Subscribe("meters/+/reading", 1, func(_ mqtt.Client, msg mqtt.Message) {
		o, err := shop.Decode(msg.Payload())
		if err != nil {
			return
		}
		_ = shop.AddPoints(context.Background(), m.DB, o.User, o.Qty) // want `IDEM001`
	})
}

// onReading is registered on the default handler; it claims the order id in
// the transaction of its effect.
func (m *Meter) onReading(_ mqtt.Client, msg mqtt.Message) {
	ctx := context.Background()
	o, err := shop.Decode(msg.Payload())
	if err != nil {
		return
	}
	tx, err := m.DB.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "meter", o.ID)
	if err != nil || !fresh {
		return
	}
	if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
		return
	}
	_ = tx.Commit()
}

func (m *Meter) Options() *mqtt.ClientOptions {
	return mqtt.NewClientOptions().AddBroker("tcp://broker:1883").SetDefaultPublishHandler(m.onReading)
}

// v5 is an MQTT 5 client whose callback is in its configuration.
func v5(db *sql.DB) *paho.Client {
	return paho.NewClient(paho.ClientConfig{
		ClientID: "stock",
		OnPublishReceived: []func(paho.PublishReceived) (bool, error){
			func(pr paho.PublishReceived) (bool, error) {
				o, err := shop.Decode(pr.Packet.Payload)
				if err != nil {
					return true, nil
				}
				return true, shop.DeductStock(context.Background(), db, o.SKU, o.Qty) // want `IDEM001`
			},
		},
	})
}
