package guard_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// TestDailyPartitions runs claims on a PostgreSQL dedup table partitioned
// by day of expiry (PartitionedTableSQL, WithDailyPartitions): records land
// in the partition of their expiry's day, a duplicate is refused when its
// record would land in another partition (sequentially, in a batch, and
// concurrently), and MaintainPartitions creates the coming days and drops
// only the partitions whose records have all expired and hold no live
// lease.
func TestDailyPartitions(t *testing.T) {
	db, err := sql.Open("pgx", guardtest.Env(t, "IDEM_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	table := "idem_part_" + strconv.FormatInt(time.Now().UnixNano()%1e12, 36)
	stmts, err := guard.PartitionedTableSQL(guard.Postgres, table, 168*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() { db.Exec(`DROP TABLE ` + table) })
	store, err := guard.NewSQLStore(db, guard.Postgres, guard.WithTable(table), guard.WithDailyPartitions(), guard.WithKeyIdentity("v1"))
	if err != nil {
		t.Fatal(err)
	}
	short, err := store.With(guard.WithRetention(48 * time.Hour)) // its records expire in another partition
	if err != nil {
		t.Fatal(err)
	}
	key := func(s string) string {
		var k guard.KeyBuilder
		k.String(s)
		return k.Key()
	}
	var effects sync.Map // key → how often its effect committed
	effect := func(k string) func(context.Context, *sql.Tx) error {
		return func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `SELECT 1`); err != nil {
				return err
			}
			n, _ := effects.LoadOrStore(k, new(int))
			*n.(*int)++ // counted before the commit; a retried apply would show here as a second run
			return nil
		}
	}
	rows := func(k string) (n int, parts []string) {
		r, err := db.Query(`SELECT tableoid::regclass::text FROM `+table+` WHERE consumer = 'c' AND key_hash = $1`, hashOf(k))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for r.Next() {
			var p string
			r.Scan(&p)
			parts = append(parts, p)
		}
		return len(parts), parts
	}

	k1 := key("k1")
	if out, err := store.Do(ctx, "c", k1, nil, effect(k1)); err != nil || out != guard.Applied {
		t.Fatalf("first claim: %v, %v", out, err)
	}
	var wantPart string
	if err := db.QueryRow(`SELECT $1 || '_p' || to_char(expires_at AT TIME ZONE 'UTC', 'YYYYMMDD') FROM `+table+` WHERE key_hash = $2`, table, hashOf(k1)).Scan(&wantPart); err != nil {
		t.Fatal(err)
	}
	if n, parts := rows(k1); n != 1 || parts[0] != wantPart {
		t.Fatalf("record of k1 in %v, want one in %s", parts, wantPart)
	}
	// Its duplicate, through a store whose records would expire 5 days
	// earlier, in another partition.
	if out, err := short.Do(ctx, "c", k1, nil, effect(k1)); err != nil || out != guard.Duplicate {
		t.Fatalf("duplicate across partitions: %v, %v; want Duplicate", out, err)
	}
	res := short.DoBatch(ctx, []guard.TxMessage[*sql.Tx]{
		{Consumer: "c", Key: k1, Apply: effect(k1)},
		{Consumer: "c", Key: key("k2"), Apply: effect(key("k2"))},
	})
	if res[0].Outcome != guard.Duplicate || res[0].Err != nil || res[1].Outcome != guard.Applied || res[1].Err != nil {
		t.Fatalf("batch: %+v, want Duplicate then Applied", res)
	}
	if n, parts := rows(k1); n != 1 {
		t.Fatalf("k1 has %d records (%v), want 1", n, parts)
	}

	// Concurrent first deliveries of one key, half of them expiring in
	// another partition: one applies.
	k3 := key("k3")
	var wg sync.WaitGroup
	outs := make([]guard.Outcome, 8)
	errs := make([]error, 8)
	for i := range 8 {
		s := store
		if i%2 == 1 {
			s = short
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = s.Do(ctx, "c", k3, nil, effect(k3))
		}()
	}
	wg.Wait()
	applied := 0
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("concurrent claim %d: %v", i, errs[i])
		}
		if outs[i] == guard.Applied {
			applied++
		}
	}
	if n, parts := rows(k3); applied != 1 || n != 1 {
		t.Fatalf("concurrent claims: %d applied, %d records (%v); want 1 and 1", applied, n, parts)
	}

	// Upkeep: an expired partition is dropped, an expired one holding a live
	// lease is kept, today's and the forever partition stay, and the
	// coming days are created.
	day := func(offset int) time.Time {
		now := time.Now().UTC()
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, offset)
	}
	part := func(d time.Time) string { return table + "_p" + d.Format("20060102") }
	for _, off := range []int{-3, -2} {
		d := day(off)
		q := fmt.Sprintf(`CREATE TABLE %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')`, part(d), table,
			d.Format(time.RFC3339), d.AddDate(0, 0, 1).Format(time.RFC3339))
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ins := `INSERT INTO ` + table + ` (consumer, key_hash, key_text, state, lease_until, created_at, expires_at) VALUES ('c', $1, '', $2, $3, $4, $4)`
	if _, err := db.Exec(ins, hashOf(key("old")), "done", nil, day(-3).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ins, hashOf(key("leased")), "pending", time.Now().Add(time.Hour), day(-2).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	up, err := store.MaintainPartitions(ctx, 10*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(up.Dropped, []string{part(day(-3))}) || !slices.Equal(up.Kept, []string{part(day(-2))}) {
		t.Fatalf("upkeep dropped %v and kept %v; want [%s] and [%s]", up.Dropped, up.Kept, part(day(-3)), part(day(-2)))
	}
	var have []string
	r, err := db.Query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`, table)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var n string
		r.Scan(&n)
		have = append(have, n)
	}
	r.Close()
	for off := -2; off <= 10; off++ {
		if off == -1 {
			continue // never created: no record expired yesterday
		}
		if !slices.Contains(have, part(day(off))) {
			t.Errorf("partition %s missing after upkeep (have %v)", part(day(off)), have)
		}
	}
	if slices.Contains(have, part(day(-3))) || !slices.Contains(have, table+"_forever") {
		t.Errorf("partitions after upkeep: %v", have)
	}
	// The claims still see k1, and Purge runs the upkeep.
	if out, err := short.Do(ctx, "c", k1, nil, effect(k1)); err != nil || out != guard.Duplicate {
		t.Fatalf("after upkeep: %v, %v; want Duplicate", out, err)
	}
	if _, err := store.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{k1, key("k2"), k3} {
		if n, _ := effects.Load(k); n == nil || *n.(*int) != 1 {
			t.Errorf("effect of %q ran %v times, want 1", k, n)
		}
	}
}

func hashOf(k string) []byte { h := guard.KeyHash(k); return h[:] }

// TestDailyPartitionsNeedPostgres: the other dialects refuse the option.
func TestDailyPartitionsNeedPostgres(t *testing.T) {
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "p.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := guard.NewSQLStore(db, guard.SQLite, guard.WithDailyPartitions()); err == nil {
		t.Fatal("NewSQLStore(SQLite, WithDailyPartitions()) succeeded")
	}
	if _, err := guard.PartitionedTableSQL(guard.MySQL, "idem_keys", time.Hour); err == nil {
		t.Fatal("PartitionedTableSQL(MySQL) succeeded")
	}
}
