package clickhousex // want package:"idemfacts"

// A RabbitMQ consumer that stores events in ClickHouse (clickhouse-go v2's
// native API): a batch insert or an Exec of a plain INSERT repeats on a
// redelivery; the events are counted twice.

import (
	"context"
	"encoding/json"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	amqp "github.com/rabbitmq/amqp091-go"
)

type event struct {
	ID      string
	App     string
	Revenue int64
}

// storeBatch inserts the events with one native batch.
func storeBatch(ctx context.Context, conn driver.Conn, events []event) error { // want storeBatch:`effects\(driver.Conn.PrepareBatch "INSERT INTO events \(event_id, app_id, revenue_cents\)"\)`
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO events (event_id, app_id, revenue_cents)")
	if err != nil {
		return err
	}
	for _, e := range events {
		if err := batch.Append(e.ID, e.App, e.Revenue); err != nil {
			return err
		}
	}
	return batch.Send()
}

// consumeBatches inserts each delivery's events and acks it.
func consumeBatches(ctx context.Context, ch *amqp.Channel, conn driver.Conn) error {
	msgs, err := ch.Consume("events", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var events []event
		if err := json.Unmarshal(d.Body, &events); err != nil {
			d.Nack(false, false)
			continue
		}
		if err := storeBatch(ctx, conn, events); err != nil { // want `effect .*driver.Conn.PrepareBatch "INSERT INTO events .*" in handler consumeBatches is not guarded by a dedup check \(IDEM001\)`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
	return nil
}

// consumeOne inserts one event with Exec.
func consumeOne(ctx context.Context, ch *amqp.Channel, conn driver.Conn) error {
	msgs, err := ch.Consume("event", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		var e event
		if err := json.Unmarshal(d.Body, &e); err != nil {
			d.Nack(false, false)
			continue
		}
		if err := conn.Exec(ctx, "INSERT INTO events (event_id, app_id, revenue_cents) VALUES (?, ?, ?)", e.ID, e.App, e.Revenue); err != nil { // want `effect driver.Conn.Exec "INSERT INTO events .*" in handler consumeOne is not guarded by a dedup check \(IDEM001\)`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
	return nil
}
