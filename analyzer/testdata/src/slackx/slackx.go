// Package slackx: Slack socket mode. Events arrive on Client.Events and are
// sent again unless the envelope is acked in time.
package slackx

import (
	"context"
	"database/sql"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"shop"
)

// loop acks every envelope first and then posts a reply: a post that fails
// is not tried again, and a redelivery (the ack lost) posts twice.
func loop(client *socketmode.Client, api *slack.Client) {
	for evt := range client.Events {
		if evt.Type != socketmode.EventTypeEventsAPI {
			continue
		}
		client.Ack(*evt.Request)                                   // want `IDEM002`
		api.PostMessage("C1", slack.MsgOptionText("hello", false)) // want `IDEM001`
	}
}

// counted dedups on the envelope id before it counts the command, and acks
// after.
func counted(ctx context.Context, client *socketmode.Client, db *sql.DB) {
	for {
		select {
		case <-ctx.Done():
			return
		case evt := <-client.Events:
			if evt.Request == nil {
				continue
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				continue
			}
			fresh, err := shop.Claim(ctx, tx, "slash", evt.Request.EnvelopeID)
			if err == nil && fresh && shop.BumpStats(ctx, tx, "today", 1) == nil && tx.Commit() == nil {
				client.Ack(*evt.Request)
				continue
			}
			tx.Rollback()
		}
	}
}
