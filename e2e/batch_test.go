package e2e_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idemkit/idem/guard"
)

// TestDeductInventoryBatch runs the generated HandleBatch of
// deduct_inventory on every SQL database (database/sql and pgx): a batch
// with a duplicate inside it, a conflicting copy, a body that does not
// decode and an out-of-stock order is answered message by message, the
// stock moving once per applied order; the same batch again is answered
// from the records.
func TestDeductInventoryBatch(t *testing.T) {
	t.Parallel()
	type backend struct {
		name string
		open func(t testing.TB) *world
		wire func(w *world) sqlHandlers
	}
	var backends []backend
	for _, b := range sqlWorlds {
		backends = append(backends, backend{b.name, b.open, databaseSQLHandlers})
	}
	backends = append(backends, backend{"pgx", pgxWorld, pgxHandlers})
	bodies := [][]byte{
		[]byte(`{"order_id":"b1","sku":"A","quantity":2}`),
		[]byte(`{"order_id":"b2","sku":"B","quantity":1}`),
		[]byte(`{"order_id":"b1","sku":"A","quantity":2}`), // duplicate inside the batch
		[]byte(`{"order_id":"b1","sku":"A","quantity":9}`), // the same key, another quantity
		[]byte(`{"order_id":"b3"}`),                        // no sku
		[]byte(`{"order_id":"b4","sku":"B","quantity":5}`), // out of stock: rejected
		[]byte(`{"order_id":"b5","sku":"A","quantity":1}`),
	}
	type want struct {
		out guard.Outcome
		err error
	}
	rounds := []struct {
		name string
		want []want
	}{
		{"first", []want{{guard.Applied, nil}, {guard.Applied, nil}, {guard.Duplicate, nil}, {0, guard.ErrKeyConflict},
			{0, guard.ErrInvalidMessage}, {0, guard.ErrFailed}, {guard.Applied, nil}}},
		{"again", []want{{guard.Duplicate, nil}, {guard.Duplicate, nil}, {guard.Duplicate, nil}, {0, guard.ErrKeyConflict},
			{0, guard.ErrInvalidMessage}, {0, guard.ErrFailed}, {guard.Duplicate, nil}}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			w := b.open(t)
			h, ok := b.wire(w).deductInventory.(guard.BatchHandler)
			if !ok {
				t.Fatal("the generated deduct_inventory handler has no HandleBatch")
			}
			w.seedStock(t, "A", 10)
			w.seedStock(t, "B", 2)
			for _, r := range rounds {
				res := h.HandleBatch(context.Background(), bodies)
				if len(res) != len(bodies) {
					t.Fatalf("%s batch: %d results for %d messages", r.name, len(res), len(bodies))
				}
				for i, w := range r.want {
					got := res[i]
					if got.Outcome != w.out || (w.err == nil) != (got.Err == nil) || (w.err != nil && !errors.Is(got.Err, w.err)) {
						t.Errorf("%s batch, message %d %s: %v, %v; want %v, %v", r.name, i, bodies[i], got.Outcome, got.Err, w.out, w.err)
					}
				}
			}
			expectInt(t, "stock of A", w.stockOf(t, "A"), 10-2-1)
			expectInt(t, "stock of B", w.stockOf(t, "B"), 2-1)
		})
	}
}
