// Package ledger appends entries through a client whose code the program
// does not have (a stand-in for an SDK).
package ledger

import "context"

// Client writes ledger entries.
type Client struct{}

// Append adds an entry.
func (c *Client) Append(ctx context.Context, entry string) error { return nil }

// Seen reports whether id was recorded before, and records it.
func (c *Client) Seen(ctx context.Context, id string) (bool, error) { return false, nil }
