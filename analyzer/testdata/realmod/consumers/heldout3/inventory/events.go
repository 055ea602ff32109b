// Package inventory holds the deduct_inventory family of consumers: sarama
// consumer groups over database/sql, and a kafka-go reader over pgx.
package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
)

// OrderCreated is the event every inventory consumer reads.
type OrderCreated struct {
	OrderID  string `json:"order_id"`
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	UserID   int64  `json:"user_id"`
}

// StockCounted is published by the warehouse after a stock take: the
// absolute quantity on hand at a given version of the count.
type StockCounted struct {
	SKU     string `json:"sku"`
	OnHand  int64  `json:"on_hand"`
	Version int64  `json:"version"`
}

var errPoison = errors.New("inventory: undecodable message")

func decodeOrder(b []byte) (OrderCreated, error) {
	var ev OrderCreated
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("%w: %v", errPoison, err)
	}
	if ev.OrderID == "" || ev.SKU == "" || ev.Quantity <= 0 {
		return ev, fmt.Errorf("%w: missing order_id, sku or quantity", errPoison)
	}
	return ev, nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
