// Package worker consumes the team's bus.
package worker

import (
	"context"
	"log"

	"rulesprog/bus"
	"rulesprog/ledger"
)

// Run appends an entry per delivery, with no dedup check.
func Run(ctx context.Context, c *bus.Consumer, l *ledger.Client) {
	for {
		d, err := c.Next(ctx)
		if err != nil {
			return
		}
		if err := l.Append(ctx, d.Body); err != nil { // want `effect ledger.Client.Append in handler Run is not guarded by a dedup check \(IDEM001\)`
			d.Retry()
			continue
		}
		d.Done()
	}
}

// RunEarly acks before the effect.
func RunEarly(ctx context.Context, c *bus.Consumer, l *ledger.Client) {
	for {
		d, err := c.Next(ctx)
		if err != nil {
			return
		}
		d.Done()                                      // want `ack bus.Delivery.Done in handler RunEarly comes before effect ledger.Client.Append.* \(IDEM002\)`
		if err := l.Append(ctx, d.Body); err != nil { // want `IDEM001`
			log.Print(err)
		}
	}
}

// RunDeduped checks the team's own dedup function first.
func RunDeduped(ctx context.Context, c *bus.Consumer, l *ledger.Client) {
	for {
		d, err := c.Next(ctx)
		if err != nil {
			return
		}
		seen, err := l.Seen(ctx, d.ID)
		if err != nil {
			d.Retry()
			continue
		}
		if !seen {
			if err := l.Append(ctx, d.Body); err != nil {
				d.Retry()
				continue
			}
		}
		d.Done()
	}
}
