// Package firestore is a stub of cloud.google.com/go/firestore@v1.21.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package firestore

import (
	"context"
	"time"
)

// Client is a Firestore client.
type Client struct{}

// Collection creates a reference to a collection with the given path.
func (c *Client) Collection(path string) *CollectionRef { return &CollectionRef{} }

// CollectionRef is a reference to a Firestore collection.
type CollectionRef struct {
	ID   string
	Path string
}

// Doc returns a DocumentRef that refers to the document in the collection with the given identifier.
func (c *CollectionRef) Doc(id string) *DocumentRef { return &DocumentRef{} }

// Add generates a DocumentRef with a unique ID and creates the document with the given data.
func (c *CollectionRef) Add(ctx context.Context, data interface{}) (*DocumentRef, *WriteResult, error) {
	return nil, nil, nil
}

// DocumentRef is a reference to a Firestore document.
type DocumentRef struct {
	Parent *CollectionRef
	Path   string
	ID     string
}

// Create creates the document with the given data; it fails if the document exists.
func (d *DocumentRef) Create(ctx context.Context, data interface{}) (_ *WriteResult, err error) {
	return nil, nil
}

// Set creates or overwrites the document with the given data.
func (d *DocumentRef) Set(ctx context.Context, data interface{}, opts ...SetOption) (_ *WriteResult, err error) {
	return nil, nil
}

// Delete deletes the document.
func (d *DocumentRef) Delete(ctx context.Context, preconds ...Precondition) (_ *WriteResult, err error) {
	return nil, nil
}

// Update updates the document.
func (d *DocumentRef) Update(ctx context.Context, updates []Update, preconds ...Precondition) (_ *WriteResult, err error) {
	return nil, nil
}

// WriteResult is returned by methods that write documents.
type WriteResult struct {
	UpdateTime time.Time
}

// Update describes an update to a value referred to by a path.
type Update struct {
	Path  string
	Value interface{}
}

// Precondition restricts a write.
type Precondition interface {
	preconditionProto()
}

// SetOption is an option for a Set call.
type SetOption interface {
	fromSetOption()
}

// Transaction is a Firestore transaction.
type Transaction struct{}

// Create adds a Create operation to the transaction.
func (t *Transaction) Create(dr *DocumentRef, data interface{}) error { return nil }

// Set adds a Set operation to the transaction.
func (t *Transaction) Set(dr *DocumentRef, data interface{}, opts ...SetOption) error { return nil }

// Delete adds a Delete operation to the transaction.
func (t *Transaction) Delete(dr *DocumentRef, opts ...Precondition) error { return nil }

// Update adds an Update operation to the transaction.
func (t *Transaction) Update(dr *DocumentRef, data []Update, opts ...Precondition) error { return nil }
