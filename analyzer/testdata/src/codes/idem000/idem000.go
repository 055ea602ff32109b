// Package idem000: the examples of IDEM000's documentation.
package idem000

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
)

func bad(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	//idem:ignore IDEM001 // want `//idem:ignore IDEM001 needs a reason \(IDEM000\)`
	if _, err := db.ExecContext(ctx, `UPDATE ledger SET n = n + 1 WHERE id = $1`, d.MessageId); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

func good(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	//idem:ignore IDEM001 the ledger has a unique index on the event id
	if _, err := db.ExecContext(ctx, `UPDATE ledger SET n = n + 1 WHERE id = $1`, d.MessageId); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
