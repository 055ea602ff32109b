package otelguard_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/otelguard"
)

// collected is what a manual reader gathered, by instrument: counters as
// value by attribute set, histograms as count and bucket counts by set.
type collected struct {
	units    map[string]string
	counters map[string]map[string]int64
	hists    map[string]map[string]hist
}

type hist struct {
	Count   uint64
	Buckets []uint64 // only the non-empty ones, as bucket index → count
}

func collect(t *testing.T, r *sdkmetric.ManualReader) collected {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	c := collected{units: map[string]string{}, counters: map[string]map[string]int64{}, hists: map[string]map[string]hist{}}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelguard.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, otelguard.ScopeName)
		}
		for _, m := range sm.Metrics {
			c.units[m.Name] = m.Unit
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if !data.IsMonotonic {
					t.Errorf("%s is not monotonic", m.Name)
				}
				for _, p := range data.DataPoints {
					if c.counters[m.Name] == nil {
						c.counters[m.Name] = map[string]int64{}
					}
					c.counters[m.Name][p.Attributes.Encoded(attribute.DefaultEncoder())] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range data.DataPoints {
					if diff := cmp.Diff(otelguard.Buckets(), p.Bounds); diff != "" {
						t.Errorf("%s bounds (-want +got):\n%s", m.Name, diff)
					}
					if c.hists[m.Name] == nil {
						c.hists[m.Name] = map[string]hist{}
					}
					h := hist{Count: p.Count, Buckets: make([]uint64, len(p.BucketCounts))}
					copy(h.Buckets, p.BucketCounts)
					c.hists[m.Name][p.Attributes.Encoded(attribute.DefaultEncoder())] = h
				}
			default:
				t.Errorf("%s: unexpected aggregation %T", m.Name, m.Data)
			}
		}
	}
	return c
}

// buckets returns the bucket counts of one value in bucket i.
func buckets(i int, n uint64) []uint64 {
	b := make([]uint64, len(otelguard.Buckets())+1)
	b[i] = n
	return b
}

func newObserver(t *testing.T, opts ...otelguard.Option) (*otelguard.Observer, *sdkmetric.ManualReader) {
	t.Helper()
	r := sdkmetric.NewManualReader()
	obs, err := otelguard.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return obs, r
}

func TestObserve(t *testing.T) {
	const (
		di  = "deduct_inventory"
		sms = "send_sms"
	)
	ms := time.Millisecond
	cases := []struct {
		name     string
		events   []guard.Event
		counters map[string]map[string]int64
		hists    map[string]map[string]hist
	}{
		{name: "decisions and durations",
			events: []guard.Event{
				{Decision: guard.DecisionApplied, Consumer: di, Claim: 2 * ms, Effect: 40 * ms},
				{Decision: guard.DecisionDuplicate, Consumer: di, Claim: 800 * time.Microsecond},
				{Decision: guard.DecisionDuplicate, Consumer: di, Claim: 900 * time.Microsecond},
				{Decision: guard.DecisionInProgress, Consumer: di, Claim: 3 * ms, Err: guard.ErrInProgress},
				{Decision: guard.DecisionRetried, Consumer: di, Attempt: 1, Err: errors.New("deadlock")},
				{Decision: guard.DecisionApplied, Consumer: sms, Claim: 300 * time.Microsecond, Effect: 1200 * ms},
				{Decision: guard.DecisionPurged, Count: 5},
				{Decision: guard.DecisionPurged}, // nothing to purge
			},
			counters: map[string]map[string]int64{
				otelguard.MetricDecisions: {
					"idem.consumer=deduct_inventory,idem.decision=applied":     1,
					"idem.consumer=deduct_inventory,idem.decision=duplicate":   2,
					"idem.consumer=deduct_inventory,idem.decision=in_progress": 1,
					"idem.consumer=deduct_inventory,idem.decision=retried":     1,
					"idem.consumer=send_sms,idem.decision=applied":             1,
					"idem.decision=purged":                                     2,
				},
				otelguard.MetricRecordsPurged: {"": 5},
			},
			hists: map[string]map[string]hist{
				otelguard.MetricClaimDuration: {
					"idem.consumer=deduct_inventory,idem.decision=applied":     {1, buckets(2, 1)}, // (1ms, 2.5ms]
					"idem.consumer=deduct_inventory,idem.decision=duplicate":   {2, buckets(1, 2)}, // (0.5ms, 1ms]
					"idem.consumer=deduct_inventory,idem.decision=in_progress": {1, buckets(3, 1)}, // (2.5ms, 5ms]
					"idem.consumer=send_sms,idem.decision=applied":             {1, buckets(0, 1)}, // ≤ 0.5ms
				},
				otelguard.MetricEffectDuration: {
					"idem.consumer=deduct_inventory,idem.decision=applied": {1, buckets(6, 1)},  // (25ms, 50ms]
					"idem.consumer=send_sms,idem.decision=applied":         {1, buckets(11, 1)}, // (1s, 2.5s]
				},
			},
		},
		{name: "leases",
			events: []guard.Event{
				{Decision: guard.DecisionTakeover, Consumer: sms},
				{Decision: guard.DecisionApplied, Consumer: sms, Claim: 4 * ms, Effect: 20 * ms},
				{Decision: guard.DecisionLeaseLost, Consumer: sms, Claim: 1 * ms, Effect: 31 * time.Second, Err: guard.ErrLeaseLost},
			},
			counters: map[string]map[string]int64{
				otelguard.MetricDecisions: {
					"idem.consumer=send_sms,idem.decision=takeover":   1,
					"idem.consumer=send_sms,idem.decision=applied":    1,
					"idem.consumer=send_sms,idem.decision=lease_lost": 1,
				},
				otelguard.MetricLeaseTakeovers: {"idem.consumer=send_sms": 1},
				otelguard.MetricLeaseLost:      {"idem.consumer=send_sms": 1},
			},
			hists: map[string]map[string]hist{
				otelguard.MetricClaimDuration: {
					"idem.consumer=send_sms,idem.decision=applied":    {1, buckets(3, 1)},
					"idem.consumer=send_sms,idem.decision=lease_lost": {1, buckets(1, 1)},
				},
				otelguard.MetricEffectDuration: {
					"idem.consumer=send_sms,idem.decision=applied":    {1, buckets(5, 1)},  // (10ms, 25ms]
					"idem.consumer=send_sms,idem.decision=lease_lost": {1, buckets(15, 1)}, // > 30s
				},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs, r := newObserver(t)
			for _, e := range c.events {
				obs.Observe(context.Background(), e)
			}
			got := collect(t, r)
			if diff := cmp.Diff(c.counters, got.counters); diff != "" {
				t.Errorf("counters (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.hists, got.hists); diff != "" {
				t.Errorf("histograms (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInstruments checks every instrument's unit, as the package doc
// lists them.
func TestInstruments(t *testing.T) {
	obs, r := newObserver(t)
	for _, d := range []guard.Decision{guard.DecisionApplied, guard.DecisionTakeover, guard.DecisionLeaseLost} {
		obs.Observe(context.Background(), guard.Event{Decision: d, Consumer: "c", Claim: time.Millisecond, Effect: time.Millisecond})
	}
	obs.Observe(context.Background(), guard.Event{Decision: guard.DecisionPurged, Count: 1})
	want := map[string]string{
		otelguard.MetricDecisions:      "{decision}",
		otelguard.MetricClaimDuration:  "s",
		otelguard.MetricEffectDuration: "s",
		otelguard.MetricLeaseTakeovers: "{lease}",
		otelguard.MetricLeaseLost:      "{lease}",
		otelguard.MetricRecordsPurged:  "{record}",
	}
	if diff := cmp.Diff(want, collect(t, r).units); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
}

// TestAttributes checks the store-wide and per-consumer attributes, and
// that the per-consumer function is asked once per consumer.
func TestAttributes(t *testing.T) {
	var asked atomic.Int32
	obs, r := newObserver(t,
		otelguard.WithAttributes(semconv.MessagingSystemKafka),
		otelguard.WithConsumerAttributes(func(consumer string) []attribute.KeyValue {
			asked.Add(1)
			return []attribute.KeyValue{semconv.MessagingConsumerGroupName(consumer), semconv.MessagingDestinationName("orders.created")}
		}))
	for range 3 {
		for _, d := range []guard.Decision{guard.DecisionApplied, guard.DecisionDuplicate, guard.DecisionTakeover} {
			obs.Observe(context.Background(), guard.Event{Decision: d, Consumer: "deduct_inventory"})
		}
	}
	obs.Observe(context.Background(), guard.Event{Decision: guard.DecisionPurged, Count: 2})
	got := collect(t, r).counters
	// An attribute set is encoded with its keys in order.
	const messaging = "messaging.consumer.group.name=deduct_inventory,messaging.destination.name=orders.created,messaging.system=kafka"
	want := map[string]map[string]int64{
		otelguard.MetricDecisions: {
			"idem.consumer=deduct_inventory,idem.decision=applied," + messaging:   3,
			"idem.consumer=deduct_inventory,idem.decision=duplicate," + messaging: 3,
			"idem.consumer=deduct_inventory,idem.decision=takeover," + messaging:  3,
			"idem.decision=purged,messaging.system=kafka":                         1,
		},
		otelguard.MetricLeaseTakeovers: {"idem.consumer=deduct_inventory," + messaging: 3},
		otelguard.MetricRecordsPurged:  {"messaging.system=kafka": 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("consumer attributes asked %d times, want once", n)
	}
}

// TestWithStore runs a real store (SQLite) with the observer: the decisions
// and the durations the store measured arrive.
func TestWithStore(t *testing.T) {
	obs, r := newObserver(t)
	store := sqliteStore(t, guard.WithObserver(obs))
	ctx := context.Background()
	effect := func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO ledger (order_id) VALUES ('o1')`)
		return err
	}
	for range 2 {
		if _, err := store.Do(ctx, "deduct_inventory", "o1", nil, effect); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Run(ctx, "send_sms", "o1", nil, func(context.Context, *guard.Lease) error { return nil }); err != nil {
		t.Fatal(err)
	}
	got := collect(t, r)
	wantCounts := map[string]int64{
		"idem.consumer=deduct_inventory,idem.decision=applied":   1,
		"idem.consumer=deduct_inventory,idem.decision=duplicate": 1,
		"idem.consumer=send_sms,idem.decision=applied":           1,
	}
	if diff := cmp.Diff(wantCounts, got.counters[otelguard.MetricDecisions]); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	counts := func(name string) map[string]uint64 {
		out := map[string]uint64{}
		for k, h := range got.hists[name] {
			out[k] = h.Count
		}
		return out
	}
	wantClaims := map[string]uint64{
		"idem.consumer=deduct_inventory,idem.decision=applied":   1,
		"idem.consumer=deduct_inventory,idem.decision=duplicate": 1,
		"idem.consumer=send_sms,idem.decision=applied":           1,
	}
	if diff := cmp.Diff(wantClaims, counts(otelguard.MetricClaimDuration)); diff != "" {
		t.Errorf("claim durations (-want +got):\n%s", diff)
	}
	wantEffects := map[string]uint64{
		"idem.consumer=deduct_inventory,idem.decision=applied": 1,
		"idem.consumer=send_sms,idem.decision=applied":         1,
	}
	if diff := cmp.Diff(wantEffects, counts(otelguard.MetricEffectDuration)); diff != "" {
		t.Errorf("effect durations (-want +got):\n%s", diff)
	}
}

func sqliteStore(t testing.TB, opts ...guard.Option) *guard.SQLStore {
	t.Helper()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "idem.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store, err := guard.NewSQLStore(db, guard.SQLite, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE ledger (order_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return store
}

// BenchmarkObserve measures one decision through the SDK.
func BenchmarkObserve(b *testing.B) {
	r := sdkmetric.NewManualReader()
	obs, err := otelguard.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e := guard.Event{Decision: guard.DecisionApplied, Consumer: "deduct_inventory", Claim: time.Millisecond, Effect: 3 * time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		obs.Observe(ctx, e)
	}
}
