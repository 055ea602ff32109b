// Package bookkeepingx: handlers that also write bookkeeping rows — an
// audit trail, a log of status changes, a scrape's status — which are
// telemetry kept in the database: no effect, and a failure to write one
// loses nothing a redelivery must redo.
package bookkeepingx

import (
	"context"
	"database/sql"
	"errors"
	"log"

	"github.com/jackc/pgx/v5/pgconn"
	amqp "github.com/rabbitmq/amqp091-go"
	"gorm.io/gorm"
)

// AuditLog is gorm's audit_logs.
type AuditLog struct {
	ID     uint
	Action string
}

// onAudited only records that the message came: no diagnostic.
func onAudited(ctx context.Context, db *sql.DB, orm *gorm.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `INSERT INTO audit_logs (action, payload) VALUES ('received', $1)`, d.Body); err != nil {
		d.Nack(false, true)
		return
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO app.order_status_log (order_id, status) VALUES ($1, 'seen')`, d.MessageId); err != nil {
		d.Nack(false, true)
		return
	}
	if err := orm.Create(&AuditLog{Action: "received"}).Error; err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// recordStatus appends a scrape's status row.
func recordStatus(ctx context.Context, db *sql.DB, resort, status string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO scraping_status (resort, status) VALUES ($1, $2)`, resort, status)
	return err
}

// onScraped upserts the snapshot by its key and logs a failed status row
// before acking: the snapshot is kept, only the record is lost. No
// diagnostic.
func onScraped(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `INSERT INTO snapshots (resort, body) VALUES ($1, $2) ON CONFLICT (resort) DO UPDATE SET body = EXCLUDED.body`, d.MessageId, d.Body); err != nil {
		d.Nack(false, true)
		return
	}
	if err := recordStatus(ctx, db, d.MessageId, "done"); err != nil {
		log.Printf("status: %v", err)
	}
	d.Ack(false)
}

// onOrder claims the message in a log table by a plain insert and tells a
// repeat by the unique violation: the table's name does not make the
// claim bookkeeping. No diagnostic.
func onOrder(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO message_log (msg_id) VALUES ($1)`, d.MessageId)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return d.Ack(false)
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - 1 WHERE sku = $1`, d.MessageId); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

// onPayment appends to a history that is the business state: a repeat
// records the payment twice.
func onPayment(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `INSERT INTO payment_history (payment_id, amount) VALUES ($1, 10)`, d.MessageId); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO payment_history .*" in handler onPayment is not guarded by a dedup check \(IDEM001\)`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// onCrawled writes the crawl's result by its key and then records the
// connection's health, discarding that update's error: the health and
// check time are bookkeeping columns, so nothing is lost. No diagnostic.
func onCrawled(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `INSERT INTO tables (qualified_name, body) VALUES ($1, $2) ON CONFLICT (qualified_name) DO UPDATE SET body = EXCLUDED.body`, d.MessageId, d.Body); err != nil {
		d.Nack(false, true)
		return
	}
	_, _ = db.ExecContext(ctx, `UPDATE connections SET health = 'healthy', last_check_at = NOW(), updated_at = NOW() WHERE id = $1`, d.MessageId)
	d.Ack(false)
}

// onRenamed discards the error of an update that sets the business state
// (the name) along with updated_at: the rename is lost.
func onRenamed(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	_, _ = db.ExecContext(ctx, `UPDATE connections SET name = $2, updated_at = NOW() WHERE id = $1`, d.MessageId, d.Body)
	d.Ack(false) // want `ack amqp091.Delivery.Ack in handler onRenamed also runs when sql.DB.ExecContext fails`
}

// onPaid records a metric sample of the payment: telemetry kept in the
// database. No diagnostic.
func onPaid(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `INSERT INTO metrics (metric_name, value) VALUES ('payment_completed', 1)`); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
