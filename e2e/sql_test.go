package e2e_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/e2e/testdata/shoppgx"
	"github.com/idemkit/idem/guard"
)

// sqlHandlers are the generated handlers of the transactional SQL
// consumers, wired to a world.
type sqlHandlers struct {
	deductInventory, addPoints, updateStats, capturePayment handler
}

// databaseSQLHandlers wires the handlers generated for database/sql (case
// shop) to w.
func databaseSQLHandlers(w *world) sqlHandlers {
	return sqlHandlers{
		deductInventory: shop.NewDeductInventoryHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.DeductInventory) error {
			return w.deduct(ctx, sqlExec(tx), m.Sku, m.Quantity)
		}, w.tableOpt()),
		addPoints: shop.NewAddPointsHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.AddPoints) error {
			return w.addPoints(ctx, sqlExec(tx), m.UserID, m.Points)
		}, w.tableOpt()),
		updateStats: shop.NewUpdateStatsHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.UpdateStats) error {
			return w.countOrder(ctx, sqlExec(tx), m.ShopID, m.Day, m.Amount)
		}, w.tableOpt()),
		capturePayment: shop.NewCapturePaymentHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.CapturePayment) error {
			return w.capture(ctx, sqlExec(tx), m.PaymentID, m.CapturedAt, m.Amount)
		}, w.tableOpt()),
	}
}

// pgxHandlers wires the handlers generated for pgx/v5 (case shoppgx) to w.
func pgxHandlers(w *world) sqlHandlers {
	return sqlHandlers{
		deductInventory: shoppgx.NewDeductInventoryHandler(w.pgxStore, func(ctx context.Context, tx pgx.Tx, m *shoppgx.DeductInventory) error {
			return w.deduct(ctx, pgxExec(tx), m.Sku, m.Quantity)
		}, w.tableOpt()),
		addPoints: shoppgx.NewAddPointsHandler(w.pgxStore, func(ctx context.Context, tx pgx.Tx, m *shoppgx.AddPoints) error {
			return w.addPoints(ctx, pgxExec(tx), m.UserID, m.Points)
		}, w.tableOpt()),
		updateStats: shoppgx.NewUpdateStatsHandler(w.pgxStore, func(ctx context.Context, tx pgx.Tx, m *shoppgx.UpdateStats) error {
			return w.countOrder(ctx, pgxExec(tx), m.ShopID, m.Day, m.Amount)
		}, w.tableOpt()),
	}
}

// TestSQLConsumers runs the transactional SQL consumers on every database:
// SQLite, PostgreSQL, MySQL/MariaDB through database/sql, and PostgreSQL
// through pgx.
func TestSQLConsumers(t *testing.T) {
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
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			w := b.open(t)
			h := b.wire(w)
			t.Run("deduct_inventory", func(t *testing.T) { testDeductInventory(t, w, h.deductInventory) })
			t.Run("add_points", func(t *testing.T) { testAddPoints(t, w, h.addPoints) })
			t.Run("update_stats", func(t *testing.T) { testUpdateStats(t, w, h.updateStats) })
			if h.capturePayment != nil {
				t.Run("capture_payment", func(t *testing.T) { testCapturePayment(t, w, h.capturePayment) })
			}
		})
	}
}

func testDeductInventory(t *testing.T, w *world, h handler) {
	w.seedStock(t, "A", 10)
	w.seedStock(t, "B", 1)

	// Three deliveries, one deduction.
	deliverThrice(t, h, `{"order_id":"o1","sku":"A","quantity":3}`)
	expectInt(t, "stock of A", w.stockOf(t, "A"), 7)

	// Three racing deliveries, one deduction: the others wait on the key.
	expectOneApplied(t, deliverConcurrently(t, h, `{"order_id":"o2","sku":"A","quantity":3}`, 3), false)
	expectInt(t, "stock of A", w.stockOf(t, "A"), 4)

	// A producer's resend with a new unrelated field is still a duplicate;
	// the same order of another sku is another key.
	expectDuplicate(t, h, `{"order_id":"o1","sku":"A","quantity":3,"sent_at":"2026-03-01T10:00:00Z"}`)
	expectApplied(t, h, `{"order_id":"o1","sku":"B","quantity":1}`)
	expectInt(t, "stock of B", w.stockOf(t, "B"), 0)

	// The same key with another quantity (the fingerprint) is a conflict.
	expectErr(t, h, `{"order_id":"o1","sku":"A","quantity":4}`, guard.ErrKeyConflict)
	expectInt(t, "stock of A", w.stockOf(t, "A"), 7-3)

	// Out of stock: the conditional update changes nothing, apply rejects,
	// and the key stays failed for every redelivery.
	expectErr(t, h, `{"order_id":"o3","sku":"A","quantity":5}`, guard.ErrFailed)
	expectErr(t, h, `{"order_id":"o3","sku":"A","quantity":5}`, guard.ErrFailed)
	expectInt(t, "stock of A", w.stockOf(t, "A"), 4)

	// Bad bodies and missing key fields change nothing.
	expectInvalid(t, h,
		`{`,
		`[]`,
		`{"order_id":"o4","quantity":1}`,
		`{"order_id":null,"sku":"A","quantity":1}`,
		`{"order_id":"","sku":"A","quantity":1}`,
		`{"order_id":4,"sku":"A","quantity":1}`,
		`{"order_id":"o4","sku":"A","quantity":"one"}`,
	)
	expectInt(t, "stock of A", w.stockOf(t, "A"), 4)
}

func testAddPoints(t *testing.T, w *world, h handler) {
	// bonus is a key field: false is a value, and the order's points and its
	// bonus points are two credits.
	deliverThrice(t, h, `{"order_id":"o1","user_id":"u1","points":10,"bonus":false}`)
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 10)
	deliverThrice(t, h, `{"order_id":"o1","user_id":"u1","points":5,"bonus":true}`)
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 15)

	expectOneApplied(t, deliverConcurrently(t, h, `{"order_id":"o2","user_id":"u1","points":1,"bonus":false}`, 3), false)
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 16)

	// 0 points is a valid message.
	deliverThrice(t, h, `{"order_id":"o3","user_id":"u2","points":0,"bonus":false}`)
	expectInt(t, "points of u2", w.pointsOf(t, "u2"), 0)

	// The fingerprint is every field: other points or another user for
	// the same key are conflicts.
	expectErr(t, h, `{"order_id":"o1","user_id":"u1","points":11,"bonus":false}`, guard.ErrKeyConflict)
	expectErr(t, h, `{"order_id":"o1","user_id":"u3","points":10,"bonus":false}`, guard.ErrKeyConflict)

	expectInvalid(t, h,
		`{"order_id":"o4","user_id":"u1","points":1}`,
		`{"order_id":"o4","user_id":"u1","points":1,"bonus":null}`,
		`{"order_id":"o4","user_id":"u1","points":1,"bonus":"yes"}`,
		`{"user_id":"u1","points":1,"bonus":false}`,
	)
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 16)
}

func testUpdateStats(t *testing.T, w *world, h handler) {
	const day = "2026-03-01"
	// Shop 0 is a shop: 0 is a valid key value.
	deliverThrice(t, h, `{"message_id":"m1","shop_id":0,"day":"`+day+`","amount":100}`)
	deliverThrice(t, h, `{"message_id":"m2","shop_id":0,"day":"`+day+`","amount":50}`)
	orders, amount := w.statsOf(t, 0, day)
	expectInt(t, "orders of shop 0", orders, 2)
	expectInt(t, "amount of shop 0", amount, 150)

	// The aggregation key is part of the key: the same message id for
	// another shop is another count.
	deliverThrice(t, h, `{"message_id":"m1","shop_id":1,"day":"`+day+`","amount":7}`)
	orders, amount = w.statsOf(t, 1, day)
	expectInt(t, "orders of shop 1", orders, 1)
	expectInt(t, "amount of shop 1", amount, 7)

	expectOneApplied(t, deliverConcurrently(t, h, `{"message_id":"m3","shop_id":0,"day":"`+day+`","amount":1}`, 3), false)
	expectErr(t, h, `{"message_id":"m1","shop_id":0,"day":"`+day+`","amount":101}`, guard.ErrKeyConflict)
	expectInvalid(t, h,
		`{"message_id":"m4","day":"`+day+`","amount":1}`,
		`{"message_id":"m4","shop_id":null,"day":"`+day+`","amount":1}`,
		`{"message_id":"m4","shop_id":0,"amount":1}`,
		`{"message_id":"m4","shop_id":1.5,"day":"`+day+`","amount":1}`,
	)
	orders, amount = w.statsOf(t, 0, day)
	expectInt(t, "orders of shop 0", orders, 3)
	expectInt(t, "amount of shop 0", amount, 151)
}

func testCapturePayment(t *testing.T, w *world, h handler) {
	const id = "6F1C2A4E-9B1D-4C3E-8F00-0123456789AB"
	body := func(id, at string, amount int) string {
		return fmt.Sprintf(`{"payment_id":%q,"captured_at":%q,"amount":%d}`, id, at, amount)
	}
	deliverThrice(t, h, body(id, "2026-03-01T10:00:00Z", 500))
	// A UUID is one key in any case, and a time one key in any zone.
	expectDuplicate(t, h, body("6f1c2a4e-9b1d-4c3e-8f00-0123456789ab", "2026-03-01T10:00:00Z", 500))
	expectDuplicate(t, h, body(id, "2026-03-01T11:00:00+01:00", 500))
	expectInt(t, "captures", w.capturesOf(t, id), 1)
	// Another instant is another capture.
	expectApplied(t, h, body(id, "2026-03-01T10:00:00.000000001Z", 500))
	expectInt(t, "captures", w.capturesOf(t, id), 2)

	expectInvalid(t, h,
		body("00000000-0000-0000-0000-000000000000", "2026-03-01T10:00:00Z", 1),
		body("not-a-uuid", "2026-03-01T10:00:00Z", 1),
		body("{"+id[1:35]+"}", "2026-03-01T10:00:00Z", 1),
		body(id, "0001-01-01T00:00:00Z", 1),
		body(id, "yesterday", 1),
		`{"payment_id":"`+id+`","amount":1}`,
	)
	expectInt(t, "captures", w.capturesOf(t, id), 2)
}
