// Package otelguard records the decisions of a guard store as OpenTelemetry
// metrics: an Observer (guard.WithObserver) on the metric API
// (go.opentelemetry.io/otel/metric). The application picks the SDK and the
// exporter; without one, the global MeterProvider records nothing.
//
//	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)) // or otel.GetMeterProvider()
//	obs, err := otelguard.New(provider,
//		otelguard.WithAttributes(semconv.MessagingSystemKafka),
//		otelguard.WithConsumerAttributes(func(consumer string) []attribute.KeyValue {
//			return []attribute.KeyValue{semconv.MessagingConsumerGroupName(consumer)}
//		}))
//	store, err := guard.NewSQLStore(db, guard.Postgres, guard.WithObserver(obs))
//
// # Instruments
//
// All are on the meter ScopeName. Durations are in seconds, as the
// OpenTelemetry conventions want, with the bucket boundaries of Buckets as
// advice.
//
//	name                  instrument         unit        attributes
//	idem.decisions        Int64Counter       {decision}  idem.consumer, idem.decision
//	idem.claim.duration   Float64Histogram   s           idem.consumer, idem.decision
//	idem.effect.duration  Float64Histogram   s           idem.consumer, idem.decision
//	idem.lease.takeovers  Int64Counter       {lease}     idem.consumer
//	idem.lease.lost       Int64Counter       {lease}     idem.consumer
//	idem.records.purged   Int64Counter       {record}    —
//
// idem.decisions counts every decision (guard.Decision: applied, duplicate,
// in_progress, takeover, uncertain, conflict, lease_lost, released, failed,
// partial, purged, retried); a purge has no consumer, so its point has no
// idem.consumer. idem.claim.duration records guard.Event.Claim — from the
// store call (Do, Claim, Run) to the claim's decision, retries included —
// once per claim, with the decision the claim ended in: duplicate,
// in_progress, conflict, failed or uncertain for a refusal, and for an
// acquired key the decision of Do or of the lease's end (applied, released,
// failed, uncertain, lease_lost). idem.effect.duration records
// guard.Event.Effect: the apply function of Do (on Redis, queuing its
// commands and MULTI … EXEC), or the time a lease was held, from the
// claim until Complete, Fail or Release settled it (their round trip
// included). A rejected Do (failed) and a partial
// Redis effect carry neither duration. idem.lease.takeovers counts
// takeover decisions (an expired lease taken over: at-least-once effects
// may run twice), idem.lease.lost the lease_lost ones (the owner found its
// lease taken when it completed), idem.records.purged the rows Purge
// deleted.
//
// The names follow the OpenTelemetry naming conventions in an idem
// namespace: no semantic convention covers dedup decisions. Where the
// messaging conventions apply — messaging.system, messaging.destination.name,
// messaging.consumer.group.name — the application adds them, with
// WithAttributes for the whole store or WithConsumerAttributes per
// consumer: the store knows its consumers, not the brokers they read.
package otelguard
