// Package store declares the repositories the consumers use; their only
// implementations live in store/pg and are wired in by main.
package store

import "context"

// Points keeps users' points.
type Points interface {
	Add(ctx context.Context, user string, n int) error
	Set(ctx context.Context, user string, n int) error
}

// Seen records handled message ids.
type Seen interface {
	// MarkSeen records id; it reports whether id is new.
	MarkSeen(ctx context.Context, id string) (bool, error)
}

// Ledger appends entries.
type Ledger interface {
	Append(ctx context.Context, user, entry string) error
}
