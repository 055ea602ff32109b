package amqpguard_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/amqpguard"
	"github.com/idemkit/idem/guard/internal/batchtest"
)

// TestRabbitMQBatch runs Consume with batching on RabbitMQ and a real
// guard store: one batch holds a duplicate, a poison message and a failing
// one; the poison is rejected to the dead-letter queue, the failing one
// requeued and applied on its redelivery, the rest acknowledged, and every
// effect commits once.
func TestRabbitMQBatch(t *testing.T) {
	conn := dial(t)
	queue, dead := topology(t, conn)
	bodies := []string{"a", "b", "a", batchtest.Poison + "c", batchtest.Flaky + "d", "e"}
	publish(t, channel(t, conn), queue, bodies...)

	h := batchtest.New(t)
	ch := channel(t, conn)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- amqpguard.Consume(ctx, ch, queue, h, amqpguard.WithLogger(nil), amqpguard.WithRetryDelay(0),
			amqpguard.WithBatch(len(bodies), 5*time.Second))
	}()
	waitFor(t, "the failing message's redelivery", 20*time.Second, func() bool { return len(h.Calls()) >= 2 })
	stop()
	if err := <-done; err != nil {
		t.Errorf("Consume = %v", err)
	}
	must(t, ch.Close()) // anything left unacknowledged is requeued

	calls := h.Calls()
	first := calls[0]
	if !slices.Equal(first.Bodies, bodies) {
		t.Fatalf("first call got %q, want the whole batch %q", first.Bodies, bodies)
	}
	want := []func(guard.Result) bool{
		applied, applied, func(r guard.Result) bool { return r.Err == nil && r.Outcome == guard.Duplicate },
		func(r guard.Result) bool { return guard.Permanent(r.Err) },
		func(r guard.Result) bool { return errors.Is(r.Err, batchtest.ErrFlaky) && !guard.Permanent(r.Err) },
		applied,
	}
	for i, ok := range want {
		if r := first.Results[i]; !ok(r) {
			t.Errorf("message %d (%s): %v, %v", i, bodies[i], r.Outcome, r.Err)
		}
	}
	if len(calls) != 2 || !slices.Equal(calls[1].Bodies, []string{batchtest.Flaky + "d"}) || !applied(calls[1].Results[0]) {
		t.Errorf("calls after the first: %+v; want one redelivery of the failing message, applied", calls[1:])
	}
	wantEffects := map[string]int{"a": 1, "b": 1, batchtest.Flaky + "d": 1, "e": 1}
	if got := h.Effects(t); !maps.Equal(got, wantEffects) {
		t.Errorf("effects %v, want %v", got, wantEffects)
	}
	if left, _ := drain(t, conn, queue); len(left) != 0 {
		t.Errorf("queue still holds %q: not every delivery was settled", left)
	}
	if got, reasons := drain(t, conn, dead); !slices.Equal(got, []string{batchtest.Poison + "c"}) || reasons[0] != "rejected" {
		t.Errorf("dead-letter queue holds %q (%q), want the poison message, rejected", got, reasons)
	}
}

// TestRabbitMQHandleBatchActions checks HandleBatch's answer on deliveries
// read by the caller, the leading run acknowledged together.
func TestRabbitMQHandleBatchActions(t *testing.T) {
	conn := dial(t)
	queue, _ := topology(t, conn)
	bodies := []string{"x", "x", batchtest.Poison + "y", "z", batchtest.Flaky + "w"}
	publish(t, channel(t, conn), queue, bodies...)
	ch := channel(t, conn)
	must(t, ch.Qos(len(bodies), 0, false))
	ds, err := ch.Consume(queue, "", false, false, false, false, nil)
	must(t, err)
	var batch []amqp.Delivery
	for range bodies {
		select {
		case d := <-ds:
			batch = append(batch, d)
		case <-time.After(10 * time.Second):
			t.Fatal("deliveries did not arrive")
		}
	}
	got := amqpguard.HandleBatch(context.Background(), batch, batchtest.New(t), amqpguard.WithLogger(nil), amqpguard.WithRetryDelay(0))
	want := []amqpguard.Action{amqpguard.Ack, amqpguard.Ack, amqpguard.Reject, amqpguard.Ack, amqpguard.Requeue}
	if !slices.Equal(got, want) {
		t.Errorf("actions %v, want %v", got, want)
	}
}

func applied(r guard.Result) bool { return r.Err == nil && r.Outcome == guard.Applied }
