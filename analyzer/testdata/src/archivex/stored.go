// Package archivex: an archive pipeline on RabbitMQ whose database work
// runs through stored functions, whose broker helpers publish, and whose
// lookups sit in helpers with a deferred span.
package archivex

import (
	"context"
	"database/sql"
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// A SELECT executed, its rows thrown away, runs a stored function for what
// it does: a write.
func markVerified(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	var locked bool
	_ = db.QueryRowContext(ctx, `SELECT sda.is_verified($1)`, d.CorrelationId).Scan(&locked) // queried: a read
	db.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, 7)                               // a builtin: no business effect
	db.ExecContext(ctx, `SELECT sda.set_verified($1, $2)`, d.CorrelationId, "sha256")        // want `effect sql.DB.ExecContext "SELECT sda.set_verified.* in handler markVerified is not guarded by a dedup check`
	d.Ack(false)                                                                             // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
}

// A stored function whose name is filled in at run time (a library's own
// publish function, named from its configuration) is not taken for a
// business effect.
func publishNamed(ctx context.Context, db *sql.DB, d amqp.Delivery, publishFunc string) {
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`SELECT %s($1)`, publishFunc), d.Body); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
