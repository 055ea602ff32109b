package e2e_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/e2e/testdata/shoppgx"
	"github.com/idemkit/idem/guard"
)

// identityBackend is a consumer of one store for TestKeyIdentityThroughHandlers:
// wire builds its generated handler with extra options, body is a message of
// it for an order and a quantity, and total is the sum of the quantities
// its effect applied.
type identityBackend struct {
	wire  func(opts ...guard.Option) handler
	body  func(order string, qty int) string
	total func() int64
}

// TestKeyIdentityThroughHandlers runs generated handlers given a key
// identity (guard.WithKeyIdentity, as idemgen writes it into them): the
// first delivery records it, handlers of the same identity go on, and a
// handler whose keys mean something else is refused, transiently, with its
// effect not run, while the first one still answers duplicates.
func TestKeyIdentityThroughHandlers(t *testing.T) {
	t.Parallel()
	const before, after = "v1 key=order_id:string,sku:string", "v1 key=order_id:string"
	deduct := func(order string, qty int) string {
		return fmt.Sprintf(`{"order_id":%q,"sku":"A","quantity":%d}`, order, qty)
	}
	backends := map[string]func(t testing.TB) identityBackend{
		"pgx": func(t testing.TB) identityBackend {
			w := pgxWorld(t)
			w.seedStock(t, "A", 100)
			return identityBackend{
				wire: func(opts ...guard.Option) handler {
					return shoppgx.NewDeductInventoryHandler(w.pgxStore, func(ctx context.Context, tx pgx.Tx, m *shoppgx.DeductInventory) error {
						return w.deduct(ctx, pgxExec(tx), m.Sku, m.Quantity)
					}, append([]guard.Option{w.tableOpt()}, opts...)...)
				},
				body: deduct, total: func() int64 { return 100 - w.stockOf(t, "A") },
			}
		},
	}
	for _, b := range sqlWorlds {
		backends[b.name] = func(t testing.TB) identityBackend {
			w := b.open(t)
			w.seedStock(t, "A", 100)
			return identityBackend{
				wire: func(opts ...guard.Option) handler {
					return shop.NewDeductInventoryHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.DeductInventory) error {
						return w.deduct(ctx, sqlExec(tx), m.Sku, m.Quantity)
					}, append([]guard.Option{w.tableOpt()}, opts...)...)
				},
				body: deduct, total: func() int64 { return 100 - w.stockOf(t, "A") },
			}
		}
	}
	for name, env := range map[string]string{"redis": envRedis, "redis-cluster": envRedisCluster} {
		backends[name] = func(t testing.TB) identityBackend {
			r := openRedisWorld(t, env)
			return identityBackend{
				wire: func(opts ...guard.Option) handler {
					return shop.NewAddPointsRedisHandler(r.store, func(ctx context.Context, pipe redis.Pipeliner, m *shop.AddPointsRedis) error {
						pipe.IncrBy(ctx, r.pointsKey(m.UserID), m.Points)
						return nil
					}, append([]guard.Option{r.prefixOpt()}, opts...)...)
				},
				body: func(order string, qty int) string {
					return fmt.Sprintf(`{"order_id":%q,"user_id":"u1","points":%d}`, order, qty)
				},
				total: func() int64 { return r.pointsOf(t, "u1") },
			}
		}
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := open(t)
			v1 := b.wire(guard.WithKeyIdentity(before))
			deliverThrice(t, v1, b.body("o1", 3))
			// Another replica of the same deployment.
			expectApplied(t, b.wire(guard.WithKeyIdentity(before)), b.body("o2", 1))
			expectInt(t, "applied", b.total(), 4)

			v2 := b.wire(guard.WithKeyIdentity(after))
			for range 2 {
				out, err := v2.Handle(testContext(t), []byte(b.body("o3", 2)))
				if !errors.Is(err, guard.ErrKeyIdentityChanged) || guard.Permanent(err) {
					t.Fatalf("delivery to a handler with a changed key identity = (%v, %v), want a transient ErrKeyIdentityChanged", out, err)
				}
			}
			expectInt(t, "applied", b.total(), 4)
			expectDuplicate(t, v1, b.body("o1", 3))
			// An empty identity checks nothing (the handler's own, which
			// idemgen writes into it, is overridden: the caller's options win).
			expectApplied(t, b.wire(guard.WithKeyIdentity("")), b.body("o4", 5))
			expectInt(t, "applied", b.total(), 9)
		})
	}
}
