// Package eventfn: Cloud Functions background functions. The platform
// calls an exported function by its deployed name with the Pub/Sub event
// decoded into the program's PubSubMessage; nothing in the code registers
// it. A document added with a new id each time is an effect; one set by
// its id is a key-value write.
package eventfn

import (
	"context"
	"encoding/json"

	"cloud.google.com/go/firestore"
)

// PubSubMessage is the payload of a Pub/Sub event.
type PubSubMessage struct {
	Data []byte `json:"data"`
}

type order struct {
	ID     string `json:"id"`
	Amount int    `json:"amount"`
}

var client *firestore.Client

// PostOrder posts the order's amount as a new balance document: a
// redelivery posts it again.
func PostOrder(ctx context.Context, m PubSubMessage) error {
	var o order
	if err := json.Unmarshal(m.Data, &o); err != nil {
		return err
	}
	_, _, err := client.Collection("posts").Add(ctx, o) // want `IDEM001`
	return err
}

// StoreOrder writes the order under its id: a redelivery writes the same
// document.
func StoreOrder(ctx context.Context, m PubSubMessage) error {
	var o order
	if err := json.Unmarshal(m.Data, &o); err != nil {
		return err
	}
	_, err := client.Collection("orders").Doc(o.ID).Set(ctx, o)
	return err
}

// Event is not a platform's event shape: Post is no handler.
type Event struct {
	Body []byte
}

// Post adds a document for an event of the program's own.
func Post(ctx context.Context, e Event) error {
	_, _, err := client.Collection("posts").Add(ctx, e.Body)
	return err
}
