package otelguard_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	_ "modernc.org/sqlite" // guard.SQLite's driver

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/otelguard"
)

// ExampleNew wires the observer into a store and reads what two deliveries
// of one order recorded. In an application the reader is an exporter's
// (OTLP, Prometheus) and the provider is often the global one
// (otel.GetMeterProvider()).
func ExampleNew() {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := otelguard.New(provider,
		otelguard.WithAttributes(semconv.MessagingSystemKafka),
		otelguard.WithConsumerAttributes(func(consumer string) []attribute.KeyValue {
			return []attribute.KeyValue{semconv.MessagingConsumerGroupName(consumer)}
		}))
	if err != nil {
		panic(err)
	}

	dir, _ := os.MkdirTemp("", "otelguard")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(dir, "idem.db")))
	defer db.Close()
	store, err := guard.NewSQLStore(db, guard.SQLite, guard.WithObserver(obs))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		panic(err)
	}

	// The order arrives twice: the effect runs once.
	for range 2 {
		out, err := store.Do(ctx, "deduct_inventory", "order-1", nil, func(ctx context.Context, tx *sql.Tx) error {
			return nil // UPDATE stock … through tx
		})
		fmt.Println(out, err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch data := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range data.DataPoints {
				d, _ := p.Attributes.Value(otelguard.AttrDecision)
				fmt.Printf("%s{%s} = %d\n", m.Name, d.AsString(), p.Value)
			}
		case metricdata.Histogram[float64]:
			for _, p := range data.DataPoints {
				d, _ := p.Attributes.Value(otelguard.AttrDecision)
				fmt.Printf("%s{%s}: %d sample(s), unit %s\n", m.Name, d.AsString(), p.Count, m.Unit)
			}
		}
	}
	// Unordered output:
	// applied <nil>
	// duplicate <nil>
	// idem.decisions{applied} = 1
	// idem.decisions{duplicate} = 1
	// idem.claim.duration{applied}: 1 sample(s), unit s
	// idem.claim.duration{duplicate}: 1 sample(s), unit s
	// idem.effect.duration{applied}: 1 sample(s), unit s
}
