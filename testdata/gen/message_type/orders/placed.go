// Package orders is the output package of the spec; it declares a message
// type itself, which the generated code must not import.
package orders

// Placed is a message type of the generated package itself.
type Placed struct {
	OrderID string `json:"order_id"`
	Total   int64  `json:"total"`
}
