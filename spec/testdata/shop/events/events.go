// Package events holds message types that specs name with message.type.
package events

import "time"

// OrderCreated is a message type with json tags, an embedded struct, a
// named string type and fields the key encoding does not support.
type OrderCreated struct {
	Meta
	OrderID   OrderID   `json:"order_id"`
	SKU       string    `json:"sku"`
	Quantity  int64     `json:"quantity,omitempty"`
	Price     float64   `json:"price"`
	CreatedAt time.Time `json:"created_at"`
	Items     []Item    `json:"items"`
	Secret    string    `json:"-"`
	internal  string
	Customer  UUID `json:"customer"`
	Note      *string
}

// Meta is promoted into messages that embed it.
type Meta struct {
	MessageID string `json:"message_id"`
	Attempt   int32
}

// OrderID is a named string type.
type OrderID string

// Item is a line of an order.
type Item struct {
	SKU string `json:"sku"`
}

// UUID is a [16]byte UUID with a String method, like github.com/google/uuid.
type UUID [16]byte

// String formats u (badly, but this is test data).
func (u UUID) String() string { return string(u[:]) }

// PointsAdded has only fields the key encoding supports.
type PointsAdded struct {
	OrderID string    `json:"order_id"`
	UserID  string    `json:"user_id"`
	Points  uint32    `json:"points"`
	Raw     []byte    `json:"raw"`
	Paid    bool      `json:"paid"`
	At      time.Time `json:"at"`
	Count   int       `json:"count"`
	Total   uint64    `json:"total"`
}

// Boxed embeds a pointer, whose fields may be nil.
type Boxed struct {
	*Meta
	OrderID string `json:"order_id"`
}

// Status is not a struct.
type Status string

// Envelope is generic.
type Envelope[T any] struct {
	Body T `json:"body"`
}
