package orders_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/examples/shop/orders"
	"github.com/idemkit/idem/guard"
)

// TestDeductInventoryHandleBatch runs the generated HandleBatch on a SQLite
// store: one batch with a duplicate, a conflicting duplicate, a body that
// does not decode and a rejected order; each gets its own answer and the
// stock moves once per applied order. A second batch of the same orders is
// all duplicates.
func TestDeductInventoryHandleBatch(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "shop.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE stock (sku TEXT PRIMARY KEY, n INTEGER NOT NULL);
		INSERT INTO stock VALUES ('apple', 10), ('pear', 10)`); err != nil {
		t.Fatal(err)
	}
	h := orders.NewDeductInventoryHandler(store, func(ctx context.Context, tx *sql.Tx, m *orders.DeductInventory) error {
		res, err := tx.ExecContext(ctx, `UPDATE stock SET n = n - ? WHERE sku = ? AND n >= ?`, m.Quantity, m.Sku, m.Quantity)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return guard.Reject(fmt.Errorf("order %s: %s out of stock", m.OrderID, m.Sku))
		}
		return nil
	})
	var _ guard.BatchHandler = h

	order := func(id, sku string, qty int) []byte {
		return fmt.Appendf(nil, `{"order_id":%q,"sku":%q,"quantity":%d}`, id, sku, qty)
	}
	batch := [][]byte{
		order("o1", "apple", 2),
		order("o2", "pear", 3),
		order("o1", "apple", 2),     // duplicate inside the batch
		order("o1", "apple", 5),     // same key, another quantity
		[]byte(`{"order_id":"o3"}`), // no sku
		order("o4", "pear", 99),     // out of stock: rejected
		order("o5", "apple", 1),
	}
	type want struct {
		out guard.Outcome
		err error
	}
	tests := []struct {
		name string
		want []want
	}{
		{"first batch", []want{
			{guard.Applied, nil}, {guard.Applied, nil}, {guard.Duplicate, nil}, {0, guard.ErrKeyConflict},
			{0, guard.ErrInvalidMessage}, {0, guard.ErrFailed}, {guard.Applied, nil},
		}},
		{"same batch again", []want{
			{guard.Duplicate, nil}, {guard.Duplicate, nil}, {guard.Duplicate, nil}, {0, guard.ErrKeyConflict},
			{0, guard.ErrInvalidMessage}, {0, guard.ErrFailed}, {guard.Duplicate, nil},
		}},
	}
	for _, tt := range tests {
		res := h.HandleBatch(ctx, batch)
		if len(res) != len(batch) {
			t.Fatalf("%s: %d results for %d messages", tt.name, len(res), len(batch))
		}
		for i, w := range tt.want {
			r := res[i]
			ok := r.Outcome == w.out && (w.err == nil && r.Err == nil || w.err != nil && errors.Is(r.Err, w.err))
			if !ok {
				t.Errorf("%s: message %d (%s): %v, %v; want %v, %v", tt.name, i, batch[i], r.Outcome, r.Err, w.out, w.err)
			}
		}
	}
	for sku, want := range map[string]int{"apple": 7, "pear": 7} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT n FROM stock WHERE sku = ?`, sku).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("stock of %s is %d, want %d: an effect ran twice or not at all", sku, n, want)
		}
	}
}
