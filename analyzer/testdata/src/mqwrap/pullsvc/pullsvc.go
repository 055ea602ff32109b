// Package pullsvc consumes through pull's wrapper, which commits only when
// told to.
package pullsvc

import (
	"context"
	"database/sql"

	"mqwrap/pull"

	"shop"
)

// Points commits after the effect, without a dedup check: a redelivery
// adds the points again.
func Points(ctx context.Context, c *pull.Consumer, db *sql.DB) error {
	for {
		d, ok := c.Next(ctx)
		if !ok {
			return nil
		}
		o, err := shop.Decode(d.Body)
		if err != nil {
			c.Commit(ctx, d)
			continue
		}
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			return err
		}
		if err := c.Commit(ctx, d); err != nil {
			return err
		}
	}
}

// Guarded claims the key in the effect's transaction first.
func Guarded(ctx context.Context, c *pull.Consumer, db *sql.DB) error {
	for {
		d, ok := c.Next(ctx)
		if !ok {
			return nil
		}
		o, err := shop.Decode(d.Body)
		if err != nil {
			c.Commit(ctx, d)
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		fresh, err := shop.Claim(ctx, tx, "points", d.Key)
		if err != nil {
			tx.Rollback()
			return err
		}
		if fresh {
			if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		} else {
			tx.Rollback()
		}
		if err := c.Commit(ctx, d); err != nil {
			return err
		}
	}
}

// Wire starts both.
func Wire(ctx context.Context, db *sql.DB) {
	c := pull.New(nil, "points", "points_group")
	go Points(ctx, c, db)
	go Guarded(ctx, c, db)
}
