package e2e_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/guard"
)

// effects implements shop.Effects the way a user's Service does, for the
// handlers NewHandlers builds: the effects of a world for the SQL consumers
// and the two send_sms consumers of orders.shipped, and the generated stubs
// of shop.Service (which answer "effect not implemented") for the others.
type effects struct {
	shop.Service
	w *world

	failStats atomic.Bool  // update_stats fails, as when its database is down
	texts     atomic.Int64 // messages sent by the send_sms consumers
}

func (e *effects) DeductInventory(ctx context.Context, tx *sql.Tx, m *shop.DeductInventory) error {
	return e.w.deduct(ctx, sqlExec(tx), m.Sku, m.Quantity)
}

// AddPoints rejects the user "nobody" for good.
func (e *effects) AddPoints(ctx context.Context, tx *sql.Tx, m *shop.AddPoints) error {
	if m.UserID == "nobody" {
		return guard.Reject(fmt.Errorf("order %s: unknown user", m.OrderID))
	}
	return e.w.addPoints(ctx, sqlExec(tx), m.UserID, m.Points)
}

func (e *effects) UpdateStats(ctx context.Context, tx *sql.Tx, m *shop.UpdateStats) error {
	if e.failStats.Load() {
		return errors.New("stats database down")
	}
	return e.w.countOrder(ctx, sqlExec(tx), m.ShopID, m.Day, m.Amount)
}

func (e *effects) SendSms(ctx context.Context, lease *guard.Lease, m *shop.SendSms) error {
	e.texts.Add(1)
	return nil
}

func (e *effects) SendSmsAtMostOnce(ctx context.Context, lease *guard.Lease, m *shop.SendSmsAtMostOnce) error {
	e.texts.Add(1)
	return nil
}

// TestNewHandlers runs the handlers NewHandlers builds from the stores and
// an Effects, and their table by topic, on every SQL database: a topic two
// consumers read runs both for each message, and answers as one.
func TestNewHandlers(t *testing.T) {
	t.Parallel()
	for _, b := range sqlWorlds {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			w := b.open(t)
			e := &effects{w: w}
			h := shop.NewHandlers(shop.Stores{SQL: w.sqlStore}, e, w.tableOpt())
			t.Run("deduct_inventory", func(t *testing.T) { testDeductInventory(t, w, h.DeductInventory) })
			t.Run("orders.paid", func(t *testing.T) { testPaidTopic(t, w, e, h.Topics()[shop.AddPointsTopic]) })
			t.Run("orders.shipped", func(t *testing.T) { testShippedTopic(t, w, e, h.Topics()[shop.SendSmsTopic]) })
			t.Run("stub", func(t *testing.T) {
				// shop.Service's stub for capture_payment: an error that
				// rolls back, so every delivery answers it (the key is not
				// taken), until the effect is written.
				body := `{"payment_id":"6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f","captured_at":"2026-03-01T10:00:00Z","amount":1}`
				for range 2 {
					_, err := h.CapturePayment.Handle(testContext(t), []byte(body))
					if err == nil || !strings.Contains(err.Error(), "capture_payment: effect not implemented") || guard.Permanent(err) {
						t.Fatalf("stub capture_payment: %v, want a transient effect not implemented", err)
					}
				}
			})
		})
	}
}

// TestHandlersTopics checks the table by topic and what the handlers of
// NewHandlers answer without their effects or a store.
func TestHandlersTopics(t *testing.T) {
	w := sqlWorlds[0].open(t)
	h := shop.NewHandlers(shop.Stores{SQL: w.sqlStore}, &effects{w: w})
	topics := h.Topics()
	if got, want := slices.Sorted(maps.Keys(topics)), []string{"orders.created", "orders.paid", "orders.shipped"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Topics() has %q, want %q", got, want)
	}
	if topics[shop.DeductInventoryTopic] != guard.Handler(h.DeductInventory) {
		t.Errorf("Topics()[%q] is not the deduct_inventory handler", shop.DeductInventoryTopic)
	}

	body := []byte(`{"order_id":"o1","sku":"A","quantity":1,"user_id":"u1"}`)
	tests := []struct {
		name string
		h    guard.Handler
		want string
	}{
		{"nil effects", shop.NewHandlers(shop.Stores{SQL: w.sqlStore}, nil).DeductInventory, "shop: NewHandlers: nil effects"},
		{"nil SQL store", shop.NewHandlers(shop.Stores{}, &effects{w: w}).DeductInventory, "deduct_inventory: NewDeductInventoryHandler: nil store"},
		{"nil Redis store", shop.NewHandlers(shop.Stores{SQL: w.sqlStore}, &effects{w: w}).AddPointsRedis, "add_points_redis: NewAddPointsRedisHandler: nil store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.h.Handle(testContext(t), body); err == nil || err.Error() != tt.want {
				t.Errorf("Handle: %v, want %s", err, tt.want)
			}
		})
	}
}

// testPaidTopic: orders.paid is read by add_points and update_stats, so its
// handler runs both; each effect happens once whatever the other answers.
func testPaidTopic(t *testing.T, w *world, e *effects, paid guard.Handler) {
	body := func(order, user, msg string) string {
		return fmt.Sprintf(`{"order_id":%q,"user_id":%q,"points":5,"bonus":false,"message_id":%q,"shop_id":1,"day":"2026-03-01","amount":100}`, order, user, msg)
	}
	stats := func(wantOrders, wantAmount int64) {
		t.Helper()
		orders, amount := w.statsOf(t, 1, "2026-03-01")
		expectInt(t, "orders counted", orders, wantOrders)
		expectInt(t, "amount counted", amount, wantAmount)
	}

	// Both effects, once each, however often the message comes.
	deliverThrice(t, paid, body("p1", "u1", "m1"))
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 5)
	stats(1, 100)

	// update_stats fails for a while: the answer is its transient error, so
	// the message comes back; add_points, done, answers Duplicate then.
	e.failStats.Store(true)
	if _, err := paid.Handle(testContext(t), []byte(body("p2", "u1", "m2"))); err == nil || guard.Permanent(err) || !strings.Contains(err.Error(), "stats database down") {
		t.Fatalf("orders.paid with update_stats down: %v, want its transient error", err)
	}
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 10)
	stats(1, 100)
	e.failStats.Store(false)
	expectApplied(t, paid, body("p2", "u1", "m2"))
	expectDuplicate(t, paid, body("p2", "u1", "m2"))
	expectInt(t, "points of u1", w.pointsOf(t, "u1"), 10)
	stats(2, 200)

	// add_points rejects the message for good: update_stats still runs, and
	// the answer is the permanent error, which dead-letters it.
	expectErr(t, paid, body("p3", "nobody", "m3"), guard.ErrFailed)
	expectErr(t, paid, body("p3", "nobody", "m3"), guard.ErrFailed)
	stats(3, 300)

	// A transient error and a permanent one: the transient one decides, so
	// the message comes back instead of being dead-lettered.
	e.failStats.Store(true)
	if _, err := paid.Handle(testContext(t), []byte(body("p4", "nobody", "m4"))); err == nil || guard.Permanent(err) {
		t.Fatalf("orders.paid with update_stats down and add_points rejecting: %v, want the transient error", err)
	}
	e.failStats.Store(false)
	expectErr(t, paid, body("p4", "nobody", "m4"), guard.ErrFailed)
	stats(4, 400)
}

// testShippedTopic: orders.shipped is read by send_sms and
// send_sms_at_most_once; while another worker holds send_sms's lease, the
// answer is its *guard.InProgressError (nak with its delay), and the text
// of send_sms_at_most_once is not sent again when the message comes back.
func testShippedTopic(t *testing.T, w *world, e *effects, shipped guard.Handler) {
	ctx := testContext(t)
	m := &shop.SendSms{OrderID: "s1", Phone: "+15550100", Template: "shipped"}
	body := `{"order_id":"s1","phone":"+15550100","template":"shipped"}`
	key, err := m.IdempotencyKey()
	if err != nil {
		t.Fatal(err)
	}
	store, err := w.sqlStore.With(w.tableOpt(), guard.WithKeyIdentity(shop.SendSmsKeyIdentity))
	if err != nil {
		t.Fatal(err)
	}
	lease, err := store.Claim(ctx, shop.SendSmsConsumer, key, m.Fingerprint())
	if err != nil {
		t.Fatal(err)
	}
	_, err = shipped.Handle(ctx, []byte(body))
	var ip *guard.InProgressError
	if !errors.As(err, &ip) || ip.Consumer != shop.SendSmsConsumer || ip.RetryAfter <= 0 {
		t.Fatalf("orders.shipped while send_sms's lease is held: %v, want send_sms's *guard.InProgressError", err)
	}
	expectInt(t, "texts sent", e.texts.Load(), 1)
	if err := lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	expectApplied(t, shipped, body)
	expectDuplicate(t, shipped, body)
	expectInt(t, "texts sent", e.texts.Load(), 2)
}
