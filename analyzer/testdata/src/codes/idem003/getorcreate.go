package idem003

import (
	"context"
	"database/sql"

	amqp "github.com/rabbitmq/amqp091-go"
)

// itemFinder looks items up by name.
type itemFinder interface {
	ItemID(ctx context.Context, name string) (int64, error)
}

// saveItem updates the item when the lookup finds it and creates it when
// the lookup fails: the failure side takes another way, and reports its
// own failure.
func saveItem(ctx context.Context, db *sql.DB, items itemFinder, name string) error {
	id, err := items.ItemID(ctx, name)
	if err == nil && id != 0 {
		_, err = db.ExecContext(ctx, `UPDATE items SET seen_at = now() WHERE id = $1`, id)
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO items (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, name); err != nil {
		return err
	}
	return nil
}

// touchItem returns success when the lookup fails: the update is skipped.
func touchItem(ctx context.Context, db *sql.DB, items itemFinder, name string) error {
	id, err := items.ItemID(ctx, name)
	if err != nil {
		return nil
	}
	_, err = db.ExecContext(ctx, `UPDATE items SET seen_at = now() WHERE id = $1`, id)
	return err
}

// getOrCreate acks after saveItem: nothing is swallowed.
func getOrCreate(ctx context.Context, db *sql.DB, items itemFinder, d amqp.Delivery) {
	if err := saveItem(ctx, db, items, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// touch acks after touchItem, which hides a failed lookup.
func touch(ctx context.Context, db *sql.DB, items itemFinder, d amqp.Delivery) {
	if err := touchItem(ctx, db, items, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false) // want `ack amqp091.Delivery.Ack in handler touch also runs when .*inside idem003.touchItem, which reports success.*\(IDEM003\)`
}
