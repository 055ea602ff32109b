// Package copysvc consumes through the copy layer: its FetchMessage is a
// fetch and its Message a message, though neither is catalogued.
package copysvc

import (
	"context"
	"database/sql"

	"mqwrap/copy"
	"shop"
)

func run(ctx context.Context, r *copy.Consumer, db *sql.DB) {
	for {
		msg, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		o, err := shop.Decode(msg.Value)
		if err != nil {
			continue
		}
		if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
			return
		}
		r.CommitMessages(ctx, msg)
	}
}
