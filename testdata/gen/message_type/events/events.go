// Package events holds message types that the spec names with message.type.
package events

import "time"

// OrderCreated has json tags, an embedded struct, named types, and fields
// the key encoding does not support.
type OrderCreated struct {
	Meta
	OrderID   OrderID   `json:"order_id"`
	SKU       string    `json:"sku"`
	Quantity  Quantity  `json:"quantity,omitempty"`
	Price     float64   `json:"price"`
	CreatedAt time.Time `json:"created_at"`
	Items     []Item    `json:"items"`
	Secret    string    `json:"-"`
	Raw       Raw       `json:"raw"`
	Paid      Flag      `json:"paid"`
}

// Meta is promoted into the messages that embed it.
type Meta struct {
	MessageID string `json:"message_id"`
	Attempt   int32
}

// OrderID is a named string type.
type OrderID string

// Quantity is a named integer type.
type Quantity uint32

// Raw is a named byte slice.
type Raw []byte

// Flag is a named bool.
type Flag bool

// Item is a line of an order.
type Item struct {
	SKU string `json:"sku"`
}

// PointsAdded is the message of a Redis effect with a hash tag.
type PointsAdded struct {
	OrderID string `json:"order_id"`
	UserID  int64  `json:"user_id"`
	Points  int    `json:"points"`
}
