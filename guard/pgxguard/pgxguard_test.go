package pgxguard_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/pgxguard"
)

func TestConformance(t *testing.T) { guardtest.Run(t, harness()) }

func TestFaults(t *testing.T) { guardtest.RunFaults(t, harness()) }

func TestBatchConformance(t *testing.T) { guardtest.RunBatch(t, harness()) }

func TestBatchFaults(t *testing.T) { guardtest.RunBatchFaults(t, harness()) }

func harness() guardtest.Harness {
	return guardtest.Harness{
		Name: "pgx",
		New: func(t testing.TB, opts ...guard.Option) guardtest.Backend {
			pool, admin := openPools(t)
			return newBackend(t, pool, admin, opts)
		},
		NewCuttable: func(t testing.TB, opts ...guard.Option) (guardtest.Backend, func()) {
			pool, admin, cut := openCuttable(t)
			return newBackend(t, pool, admin, opts), cut
		},
	}
}

func openPools(t testing.TB) (pool, admin *pgxpool.Pool) {
	t.Helper()
	cfg := poolConfig(t)
	admin = newPool(t, cfg)
	return admin, admin
}

func openCuttable(t testing.TB) (pool, admin *pgxpool.Pool, cut func()) {
	t.Helper()
	cfg := poolConfig(t)
	admin = newPool(t, cfg)
	cc := cfg.ConnConfig
	addr, cut := guardtest.NewProxy(t, net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))))
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.ParseUint(port, 10, 16)
	pcfg := cfg.Copy()
	pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, pcfg.ConnConfig.Fallbacks = host, uint16(p), nil
	return newPool(t, pcfg), admin, cut
}

func poolConfig(t testing.TB) *pgxpool.Config {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(guardtest.Env(t, "IDEM_TEST_POSTGRES"))
	if err != nil {
		t.Fatalf("IDEM_TEST_POSTGRES: %v", err)
	}
	cfg.MaxConns = 32
	return cfg
}

func newPool(t testing.TB, cfg *pgxpool.Config) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newBackend builds a store on pool over a fresh dedup table and counters
// table, created and dropped through admin (which is never cut).
func newBackend(t testing.TB, pool, admin *pgxpool.Pool, opts []guard.Option) guardtest.Backend {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	table := "idem_pgx_" + hex.EncodeToString(b[:])
	counters := table + "_counters"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adminStore, err := pgxguard.New(admin, guard.WithTable(table))
	if err != nil {
		t.Fatal(err)
	}
	if err := adminStore.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `CREATE TABLE `+counters+` (name text PRIMARY KEY, n bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, `DROP TABLE IF EXISTS `+table+`, `+counters); err != nil {
			t.Errorf("clean-up: %v", err)
		}
	})
	tamper := guardtest.SQLTamper(func(ctx context.Context, query string, args ...any) (int64, error) {
		tag, err := admin.Exec(ctx, query, args...)
		return tag.RowsAffected(), err
	}, guard.Postgres, table)
	return backendOn(t, pool, table, counters, tamper, opts)
}

// backendOn builds a store with opts on the existing dedup table and
// counters table.
func backendOn(t testing.TB, pool *pgxpool.Pool, table, counters string, tamper guardtest.Tamper, opts []guard.Option) guardtest.Backend {
	t.Helper()
	store, err := pgxguard.New(pool, append([]guard.Option{guard.WithTable(table)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	upsert := `INSERT INTO ` + counters + ` (name, n) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET n = ` + counters + `.n + EXCLUDED.n`
	return guardtest.Backend{
		Tamper: tamper,
		Clone: func(more ...guard.Option) guardtest.Backend {
			return backendOn(t, pool, table, counters, tamper, append(slices.Clip(opts), more...))
		},
		Store: store,
		Do: func(ctx context.Context, consumer, key string, fp []byte, e guardtest.Effect) (guard.Outcome, error) {
			return store.Do(ctx, consumer, key, fp, func(ctx context.Context, tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, upsert, e.Counter, e.Delta); err != nil {
					return fmt.Errorf("add to counter %s: %w", e.Counter, err)
				}
				if e.Hook != nil {
					return e.Hook(ctx)
				}
				return nil
			})
		},
		DoBatch: func(ctx context.Context, msgs []guardtest.BatchEffect) []guard.Result {
			batch := make([]guard.TxMessage[pgx.Tx], len(msgs))
			for i, m := range msgs {
				batch[i] = guard.TxMessage[pgx.Tx]{Consumer: m.Consumer, Key: m.Key, Fingerprint: m.Fingerprint,
					Apply: func(ctx context.Context, tx pgx.Tx) error {
						if _, err := tx.Exec(ctx, upsert, m.Effect.Counter, m.Effect.Delta); err != nil {
							return fmt.Errorf("add to counter %s: %w", m.Effect.Counter, err)
						}
						if m.Effect.Hook != nil {
							return m.Effect.Hook(ctx)
						}
						return nil
					}}
			}
			return store.DoBatch(ctx, batch)
		},
		Counter: func(ctx context.Context, name string) (int64, error) {
			var n int64
			err := pool.QueryRow(ctx, `SELECT n FROM `+counters+` WHERE name = $1`, name).Scan(&n)
			if errors.Is(err, pgx.ErrNoRows) {
				return 0, nil
			}
			return n, err
		},
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	if _, err := pgxguard.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	pool := newPool(t, poolConfig(t))
	if _, err := pgxguard.New(pool, guard.WithTable("bad name; drop table x")); err == nil {
		t.Error("New with an injected table name succeeded")
	}
	s, err := pgxguard.New(pool, guard.WithLease(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.With(guard.WithDelivery(guard.AtMostOnce))
	if err != nil {
		t.Fatal(err)
	}
	if c := w.Config(); c.Delivery != guard.AtMostOnce || c.Lease != time.Second {
		t.Errorf("With: config %+v, want at-most-once with the store's 1s lease", c)
	}
	if _, err := s.With(guard.WithLease(-1)); err == nil {
		t.Error("With(negative lease) succeeded")
	}
}

// batchCounter is a pgx tracer counting the batches sent and their queries.
type batchCounter struct {
	mu      sync.Mutex
	batches [][]string
	queries []string
}

// sent returns the batches and queries traced so far.
func (c *batchCounter) sent() (batches [][]string, queries []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.batches), slices.Clone(c.queries)
}

func (c *batchCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	c.queries = append(c.queries, d.SQL)
	c.mu.Unlock()
	return ctx
}
func (c *batchCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *batchCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var qs []string
	for _, q := range d.Batch.QueuedQueries {
		qs = append(qs, q.SQL)
	}
	c.mu.Lock()
	c.batches = append(c.batches, qs)
	c.mu.Unlock()
	return ctx
}
func (c *batchCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *batchCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestDoPipelinesBeginAndClaim checks that Do on a pool sends BEGIN and the
// claim in one batch (one round trip), that the transaction apply gets is
// READ COMMITTED, and that a pool wrapped so that it sends no batches
// still works, with BEGIN on its own.
func TestDoPipelinesBeginAndClaim(t *testing.T) {
	tests := []struct {
		name      string
		wrap      func(*pgxpool.Pool) pgxguard.DB
		pipelined bool
	}{
		{"pool", func(p *pgxpool.Pool) pgxguard.DB { return p }, true},
		{"wrapped pool", func(p *pgxpool.Pool) pgxguard.DB { return noBatches{p} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := poolConfig(t)
			tracer := &batchCounter{}
			cfg.ConnConfig.Tracer = tracer
			pool := newPool(t, cfg)
			b := newBackend(t, pool, pool, nil)
			store, err := pgxguard.New(tt.wrap(pool), guard.WithTable(b.Store.Config().Table))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			tracer.mu.Lock()
			tracer.batches, tracer.queries = nil, nil
			tracer.mu.Unlock()
			var iso string
			out, err := store.Do(ctx, "deduct_inventory", "v11:p", nil, func(ctx context.Context, tx pgx.Tx) error {
				return tx.QueryRow(ctx, `SHOW transaction_isolation`).Scan(&iso)
			})
			if err != nil || out != guard.Applied {
				t.Fatalf("Do = %v, %v", out, err)
			}
			if iso != "read committed" {
				t.Errorf("apply's transaction is %q, want read committed", iso)
			}
			batches, queries := tracer.sent()
			pipelined := len(batches) == 1 && len(batches[0]) == 2 &&
				strings.HasPrefix(batches[0][0], "begin") && strings.Contains(batches[0][1], "INSERT")
			if pipelined != tt.pipelined {
				t.Errorf("batches %q, queries %q: pipelined %t, want %t", batches, queries, pipelined, tt.pipelined)
			}
			if again, err := store.Do(ctx, "deduct_inventory", "v11:p", nil, func(context.Context, pgx.Tx) error { return nil }); err != nil || again != guard.Duplicate {
				t.Errorf("second Do = %v, %v; want duplicate", again, err)
			}
		})
	}
}

// noBatches hides a pool's SendBatch.
type noBatches struct{ p *pgxpool.Pool }

func (n noBatches) BeginTx(ctx context.Context, o pgx.TxOptions) (pgx.Tx, error) {
	return n.p.BeginTx(ctx, o)
}
func (n noBatches) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return n.p.Exec(ctx, sql, args...)
}
func (n noBatches) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return n.p.QueryRow(ctx, sql, args...)
}
func (n noBatches) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return n.p.Query(ctx, sql, args...)
}
