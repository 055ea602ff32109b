// Package events: the service's handlers of stream entries, registered on
// its own consumer.
package events

import (
	"context"
	"database/sql"
	"fmt"

	"ownstream/stream"
)

// Points handles point awards.
type Points struct{ db *sql.DB }

// onAward adds the points on every delivery of the entry.
func (p *Points) onAward(ctx context.Context, id string, payload map[string]interface{}) error {
	_, err := p.db.ExecContext(ctx, "UPDATE users SET points = points + 1 WHERE id = $1", fmt.Sprint(payload["user"])) // want `IDEM001`
	return err
}

// onRename sets a name: a repeat leaves the same row.
func (p *Points) onRename(ctx context.Context, id string, payload map[string]interface{}) error {
	_, err := p.db.ExecContext(ctx, "UPDATE users SET name = $1 WHERE id = $2", fmt.Sprint(payload["name"]), fmt.Sprint(payload["user"]))
	return err
}

// Wire registers the handlers.
func Wire(ctx context.Context, c *stream.Consumer, db *sql.DB) {
	p := &Points{db: db}
	c.Register("awards", p.onAward)
	c.Register("renames", p.onRename)
	c.Start(ctx, 4)
}
