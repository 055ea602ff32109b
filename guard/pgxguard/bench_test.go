package pgxguard_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/pgxguard"
)

// BenchmarkPgx compares a message handled by a guarded transactional effect
// (pgxguard's Do: claim insert, UPDATE stock, commit) with the same effect
// unguarded (BEGIN, UPDATE stock, COMMIT) on the same pool, at concurrency 1
// and 8; every message has a fresh key. BENCHMARKS.md records the ratios.
func BenchmarkPgx(b *testing.B) {
	pool := newPool(b, poolConfig(b))
	ctx := context.Background()
	table := "idem_bench_pgx_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	stock := table + "_stock"
	store, err := pgxguard.New(pool, guard.WithTable(table))
	if err != nil {
		b.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		b.Fatal(err)
	}
	const skus = 64
	if _, err := pool.Exec(ctx, `CREATE TABLE `+stock+` (sku text PRIMARY KEY, n bigint NOT NULL);
		INSERT INTO `+stock+` SELECT 'sku' || i, 1000000000 FROM generate_series(0, `+strconv.Itoa(skus-1)+`) i`); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Exec(context.Background(), `DROP TABLE `+stock+`, `+table) })
	update := `UPDATE ` + stock + ` SET n = n - 1 WHERE sku = $1`
	var seq atomic.Int64
	run := fmt.Sprintf("%d-", time.Now().UnixNano())
	message := map[string]func() error{
		"unguarded": func() error {
			i := seq.Add(1)
			return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, update, "sku"+strconv.FormatInt(i%skus, 10))
				return err
			})
		},
		"guarded": func() error {
			i := seq.Add(1)
			var k guard.KeyBuilder
			k.String(run + strconv.FormatInt(i, 10))
			out, err := store.Do(ctx, "deduct_inventory", k.Key(), nil, func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, update, "sku"+strconv.FormatInt(i%skus, 10))
				return err
			})
			return guardtest.WantApplied(out, err)
		},
	}
	guardtest.BenchGuarded(b, message["unguarded"], message["guarded"])
}

// BenchmarkPgxPipelining compares Do on a pool, which sends BEGIN and the
// claim in one batch, with Do on the same pool hidden behind a DB that
// sends no batches (BEGIN, then the claim: one round trip more). Every
// message has a fresh key and an empty effect, so the difference is the
// round trip. It asserts nothing about time.
func BenchmarkPgxPipelining(b *testing.B) {
	pool := newPool(b, poolConfig(b))
	ctx := context.Background()
	table := "idem_bench_pipe_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	created, err := pgxguard.New(pool, guard.WithTable(table))
	if err != nil {
		b.Fatal(err)
	}
	if err := created.CreateTable(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Exec(context.Background(), `DROP TABLE `+table) })
	run := fmt.Sprintf("%d-", time.Now().UnixNano())
	var seq atomic.Int64
	for _, bc := range []struct {
		name string
		db   pgxguard.DB
	}{
		{"pipelined", pool},
		{"begin_then_claim", noBatches{pool}},
	} {
		store, err := pgxguard.New(bc.db, guard.WithTable(table))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				var k guard.KeyBuilder
				k.String(run + strconv.FormatInt(seq.Add(1), 10))
				out, err := store.Do(ctx, "deduct_inventory", k.Key(), nil, func(context.Context, pgx.Tx) error { return nil })
				if err := guardtest.WantApplied(out, err); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
