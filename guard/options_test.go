package guard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

func TestNewConfigDefaults(t *testing.T) {
	c, err := guard.NewConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Retention != 168*time.Hour || c.Lease != 30*time.Second || c.Table != "idem_keys" || c.MaxRetries != 10 ||
		c.PurgeBatch != 1000 || c.Delivery != guard.AtLeastOnce || c.OnError != guard.Release || c.Observer == nil {
		t.Errorf("defaults = %+v", c)
	}
}

func TestNewConfigValidation(t *testing.T) {
	bad := []struct {
		name string
		opts []guard.Option
		want string // in the message
	}{
		{"zero retention", []guard.Option{guard.WithRetention(0)}, "retention 0s is below the minimum of 1m0s"},
		{"negative retention", []guard.Option{guard.WithRetention(-time.Second)}, "retention -1s is below the minimum of 1m0s"},
		{"retention below a microsecond", []guard.Option{guard.WithRetention(168)}, "guard: retention 168ns is below the minimum of 1m0s"},
		{"retention just below the minimum", []guard.Option{guard.WithRetention(guard.MinRetention - 1)}, "below the minimum of 1m0s"},
		{"zero lease", []guard.Option{guard.WithLease(0)}, "lease 0s is below the minimum of 1s"},
		{"negative lease", []guard.Option{guard.WithLease(-1)}, "lease -1ns is below the minimum of 1s"},
		{"lease of 5ms", []guard.Option{guard.WithLease(5 * time.Millisecond)}, "guard: lease 5ms is below the minimum of 1s"},
		{"lease just below the minimum", []guard.Option{guard.WithLease(guard.MinLease - 1)}, "below the minimum of 1s"},
		{"lease longer than retention", []guard.Option{guard.WithRetention(time.Minute), guard.WithLease(2 * time.Minute)}, "retention"},
		{"max lease hold below the lease", []guard.Option{guard.WithLease(time.Minute), guard.WithMaxLeaseHold(30 * time.Second)}, "longer than the maximum lease hold"},
		{"max lease hold below the minimum", []guard.Option{guard.WithMaxLeaseHold(time.Millisecond)}, "maximum lease hold 1ms is below the minimum of 1s"},
		{"negative max lease hold", []guard.Option{guard.WithMaxLeaseHold(-time.Hour)}, "maximum lease hold"},
		{"key identity too long", []guard.Option{guard.WithKeyIdentity(strings.Repeat("i", guard.MaxKeyIdentityLen+1))}, "key identity of 1025 bytes"},
		{"unknown delivery", []guard.Option{guard.WithDelivery(guard.Delivery(7))}, "delivery"},
		{"unknown on_error", []guard.Option{guard.WithOnError(guard.OnError(9))}, "on_error"},
		{"empty table", []guard.Option{guard.WithTable("")}, "table"},
		{"table with a dash", []guard.Option{guard.WithTable("idem-keys")}, "table"},
		{"table with a quote", []guard.Option{guard.WithTable(`idem"; DROP TABLE x; --`)}, "table"},
		{"table with two dots", []guard.Option{guard.WithTable("a.b.c")}, "table"},
		{"table starting with a digit", []guard.Option{guard.WithTable("1keys")}, "table"},
		{"table of 64 characters", []guard.Option{guard.WithTable(strings.Repeat("k", 64))}, "table"},
		{"negative max retries", []guard.Option{guard.WithMaxRetries(-1)}, "retries"},
		{"zero purge batch", []guard.Option{guard.WithPurgeBatch(0)}, "purge"},
		{"negative purge batch", []guard.Option{guard.WithPurgeBatch(-5)}, "purge"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := guard.NewConfig(tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewConfig = %v, want an error about %s", err, tt.want)
			}
		})
	}
	good := [][]guard.Option{
		{guard.WithTable("app.idem_keys")},
		{guard.WithTable(strings.Repeat("k", 63))},
		{guard.WithTable("_keys2")},
		{guard.WithMaxRetries(0)},
		{guard.WithRetention(time.Minute), guard.WithLease(time.Minute)},
		{guard.WithRetention(guard.MinRetention), guard.WithLease(guard.MinLease)},
		{guard.WithLease(2 * time.Hour), guard.WithMaxLeaseHold(2 * time.Hour)},
		{guard.WithKeyIdentity(strings.Repeat("i", guard.MaxKeyIdentityLen))},
		{guard.WithDelivery(guard.AtMostOnce), guard.WithOnError(guard.Keep), guard.WithPurgeBatch(1)},
	}
	for _, opts := range good {
		if _, err := guard.NewConfig(opts...); err != nil {
			t.Errorf("NewConfig of valid options: %v", err)
		}
	}
}

func TestConfigWith(t *testing.T) {
	base, err := guard.NewConfig(guard.WithTable("keys"), guard.WithLease(time.Minute), guard.WithDelivery(guard.AtMostOnce))
	if err != nil {
		t.Fatal(err)
	}
	c, err := base.With(guard.WithLease(2 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if c.Lease != 2*time.Minute || c.Table != "keys" || c.Delivery != guard.AtMostOnce || base.Lease != time.Minute {
		t.Errorf("With: got %+v from base %+v", c, base)
	}
	if _, err := base.With(guard.WithLease(time.Hour * 1000)); err == nil {
		t.Error("With of a lease longer than the retention = nil error")
	}
}

func TestEnumStrings(t *testing.T) {
	for got, want := range map[string]string{
		guard.Applied.String(): "applied", guard.Duplicate.String(): "duplicate", guard.Outcome(0).String(): "outcome(0)",
		guard.AtLeastOnce.String(): "at-least-once", guard.AtMostOnce.String(): "at-most-once",
		guard.Release.String(): "release", guard.Keep.String(): "keep",
		guard.Postgres.String(): "postgres", guard.MySQL.String(): "mysql", guard.SQLite.String(): "sqlite",
	} {
		if got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	for _, d := range []guard.Dialect{guard.Postgres, guard.MySQL, guard.SQLite} {
		if p, err := guard.ParseDialect(d.String()); err != nil || p != d {
			t.Errorf("ParseDialect(%q) = %v, %v", d, p, err)
		}
	}
	if _, err := guard.ParseDialect("oracle"); err == nil {
		t.Error(`ParseDialect("oracle") = nil error`)
	}
}

func TestTableSQL(t *testing.T) {
	for _, d := range []guard.Dialect{guard.Postgres, guard.MySQL, guard.SQLite} {
		create, err := guard.CreateTableSQL(d, "app.idem_keys")
		if err != nil || len(create) == 0 {
			t.Fatalf("CreateTableSQL(%s) = %v, %v", d, create, err)
		}
		all := strings.Join(create, "\n")
		for _, want := range []string{"app.idem_keys", "idem_keys_expires_at", "PRIMARY KEY (consumer, key_hash)"} {
			if !strings.Contains(all, want) {
				t.Errorf("CreateTableSQL(%s) lacks %q:\n%s", d, want, all)
			}
		}
		if drop, err := guard.DropTableSQL(d, "app.idem_keys"); err != nil || !strings.Contains(strings.Join(drop, ""), "app.idem_keys") {
			t.Errorf("DropTableSQL(%s) = %v, %v", d, drop, err)
		}
		if _, err := guard.CreateTableSQL(d, "bad name"); err == nil {
			t.Errorf("CreateTableSQL(%s, bad name) = nil error", d)
		}
	}
	if _, err := guard.CreateTableSQL(guard.Dialect(9), "k"); err == nil {
		t.Error("CreateTableSQL of an unknown dialect = nil error")
	}
}

func TestLeaseHoldLimit(t *testing.T) {
	for _, tt := range []struct {
		opts []guard.Option
		want time.Duration
	}{
		{nil, guard.DefaultMaxLeaseHold},
		{[]guard.Option{guard.WithLease(3 * time.Hour)}, 3 * time.Hour},
		{[]guard.Option{guard.WithMaxLeaseHold(5 * time.Minute)}, 5 * time.Minute},
		{[]guard.Option{guard.WithLease(time.Minute), guard.WithMaxLeaseHold(time.Minute)}, time.Minute},
	} {
		c, err := guard.NewConfig(tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.LeaseHoldLimit(); got != tt.want {
			t.Errorf("LeaseHoldLimit = %s, want %s", got, tt.want)
		}
	}
}
