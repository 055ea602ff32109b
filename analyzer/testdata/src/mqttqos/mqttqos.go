// Package mqttqos: an MQTT subscription at QoS 0 is at-most-once (the
// broker never sends the message again), so its handler's effects cannot
// repeat; at QoS 1 they can. Whole-program mode only: the QoS is read at the
// Subscribe call.
package mqttqos

import (
	"context"
	"database/sql"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

type Nodes struct{ DB *sql.DB }

func (n *Nodes) onReport(_ mqtt.Client, msg mqtt.Message) {
	n.DB.ExecContext(context.Background(), "UPDATE nodes SET reports = reports + 1 WHERE id = $1", msg.Topic())
}

func (n *Nodes) onCommand(_ mqtt.Client, msg mqtt.Message) {
	n.DB.ExecContext(context.Background(), "UPDATE nodes SET commands = commands + 1 WHERE id = $1", msg.Topic()) // want `IDEM001`
}

// Subscribe subscribes the reports at QoS 0 and the commands at QoS 1.
func (n *Nodes) Subscribe(c mqtt.Client) {
	c.Subscribe("reports/#", 0, n.onReport)
	c.Subscribe("commands/#", 1, n.onCommand)
}
