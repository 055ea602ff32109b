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

// KeyError is an API error carried in a response.
type KeyError struct{ Err string }

func (e *KeyError) Error() string { return e.Err }

// UploadResponse is the answer of Keys.Upload.
type UploadResponse struct{ Error *KeyError }

// Keys stores users' keys; failures come back in the response.
type Keys interface {
	Upload(ctx context.Context, user string, res *UploadResponse)
}

// Outbox queues messages for another service.
type Outbox interface {
	Enqueue(ctx context.Context, payload []byte) error
}
