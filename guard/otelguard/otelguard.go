package otelguard

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/idemkit/idem/guard"
)

// ScopeName is the instrumentation scope of the meter the Observer records
// on.
const ScopeName = "github.com/idemkit/idem/guard/otelguard"

// The names of the instruments (see the package doc for their units and
// attributes).
const (
	MetricDecisions      = "idem.decisions"
	MetricClaimDuration  = "idem.claim.duration"
	MetricEffectDuration = "idem.effect.duration"
	MetricLeaseTakeovers = "idem.lease.takeovers"
	MetricLeaseLost      = "idem.lease.lost"
	MetricRecordsPurged  = "idem.records.purged"
)

// The attributes the Observer sets.
const (
	AttrConsumer = attribute.Key("idem.consumer") // the guard consumer; absent for purges
	AttrDecision = attribute.Key("idem.decision") // guard.Decision: applied, duplicate, …
)

// Buckets returns the explicit bucket boundaries, in seconds, that the
// duration histograms advise: from half a millisecond, where a claim on a
// local database lands, to 30 seconds, the default lease. A view in the
// MeterProvider can replace them.
func Buckets() []float64 {
	return []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
}

// Option configures New.
type Option func(*config)

type config struct {
	static      []attribute.KeyValue
	perConsumer func(consumer string) []attribute.KeyValue
}

// WithAttributes adds kv to every measurement: attributes that are the same
// for every consumer of the store, such as messaging.system.
func WithAttributes(kv ...attribute.KeyValue) Option {
	return func(c *config) { c.static = append(c.static, kv...) }
}

// WithConsumerAttributes adds to a consumer's measurements the attributes f
// returns for it: where the application knows them, the semantic
// conventions' messaging.consumer.group.name and messaging.destination.name.
// f is called once per consumer (its answer is kept) and must return few,
// fixed values: every distinct set is a time series.
func WithConsumerAttributes(f func(consumer string) []attribute.KeyValue) Option {
	return func(c *config) { c.perConsumer = f }
}

// Observer is a guard.Observer that records every decision of a store as
// OpenTelemetry metrics. It is safe for concurrent use; a decision costs a
// few counter and histogram updates on attribute sets built once per
// consumer and decision.
type Observer struct {
	cfg       config
	decisions metric.Int64Counter
	claim     metric.Float64Histogram
	effect    metric.Float64Histogram
	takeovers metric.Int64Counter
	lost      metric.Int64Counter
	purged    metric.Int64Counter

	sets      sync.Map // series → *measure
	consumers sync.Map // consumer → []attribute.KeyValue: WithConsumerAttributes's answer
}

var _ guard.Observer = (*Observer)(nil)

// series names one attribute set: a consumer's with or without a decision.
type series struct {
	consumer string
	decision guard.Decision
}

// measure holds the options of one attribute set, built once.
type measure struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

// New returns an Observer recording on the meter ScopeName of mp; pass it to
// a store with guard.WithObserver.
func New(mp metric.MeterProvider, opts ...Option) (*Observer, error) {
	o := &Observer{}
	for _, opt := range opts {
		opt(&o.cfg)
	}
	m := mp.Meter(ScopeName)
	var err error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, cerr := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err == nil && cerr != nil {
			err = fmt.Errorf("otelguard: %s: %w", name, cerr)
		}
		return c
	}
	histogram := func(name, desc string) metric.Float64Histogram {
		h, herr := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(Buckets()...))
		if err == nil && herr != nil {
			err = fmt.Errorf("otelguard: %s: %w", name, herr)
		}
		return h
	}
	o.decisions = counter(MetricDecisions, "{decision}", "Decisions of the guard store, by consumer and decision.")
	o.claim = histogram(MetricClaimDuration, "Time to claim a key, from the store call to the claim's decision.")
	o.effect = histogram(MetricEffectDuration, "Time the guarded effect ran.")
	o.takeovers = counter(MetricLeaseTakeovers, "{lease}", "Expired leases taken over by a new owner (at-least-once: the effect may run twice).")
	o.lost = counter(MetricLeaseLost, "{lease}", "Leases taken over before their owner completed (the effect may have run twice).")
	o.purged = counter(MetricRecordsPurged, "{record}", "Expired dedup records deleted by Purge.")
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Observe implements guard.Observer.
func (o *Observer) Observe(ctx context.Context, e guard.Event) {
	m := o.measure(series{e.Consumer, e.Decision})
	o.decisions.Add(ctx, 1, m.add...)
	if e.Claim > 0 {
		o.claim.Record(ctx, e.Claim.Seconds(), m.record...)
	}
	if e.Effect > 0 {
		o.effect.Record(ctx, e.Effect.Seconds(), m.record...)
	}
	switch e.Decision {
	case guard.DecisionTakeover:
		o.takeovers.Add(ctx, 1, o.measure(series{consumer: e.Consumer}).add...)
	case guard.DecisionLeaseLost:
		o.lost.Add(ctx, 1, o.measure(series{consumer: e.Consumer}).add...)
	case guard.DecisionPurged:
		if e.Count > 0 {
			o.purged.Add(ctx, e.Count, o.measure(series{}).add...)
		}
	}
}

// measure returns the options of s's attribute set, building them the
// first time.
func (o *Observer) measure(s series) *measure {
	if m, ok := o.sets.Load(s); ok {
		return m.(*measure)
	}
	kv := append([]attribute.KeyValue(nil), o.cfg.static...)
	if s.consumer != "" {
		kv = append(kv, o.consumerAttrs(s.consumer)...)
		kv = append(kv, AttrConsumer.String(s.consumer))
	}
	if s.decision != "" {
		kv = append(kv, AttrDecision.String(string(s.decision)))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	m, _ := o.sets.LoadOrStore(s, &measure{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}})
	return m.(*measure)
}

// consumerAttrs returns WithConsumerAttributes's answer for consumer,
// asking once.
func (o *Observer) consumerAttrs(consumer string) []attribute.KeyValue {
	if o.cfg.perConsumer == nil {
		return nil
	}
	if kv, ok := o.consumers.Load(consumer); ok {
		return kv.([]attribute.KeyValue)
	}
	kv, _ := o.consumers.LoadOrStore(consumer, o.cfg.perConsumer(consumer))
	return kv.([]attribute.KeyValue)
}
