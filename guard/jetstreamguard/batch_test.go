package jetstreamguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/batchtest"
	"github.com/idemkit/idem/guard/jetstreamguard"
)

// TestConsumeBatch runs Consume with batching on a real server and a real
// guard store: one fetch brings a batch with a duplicate, a poison message
// and a failing one; each is settled by its own outcome — the poison
// terminated, the failing one naked and redelivered, the rest acked — and
// every effect commits once.
func TestConsumeBatch(t *testing.T) {
	nc, js := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "B", Subjects: []string{"B.>"}}); err != nil {
		t.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "B", jetstream.ConsumerConfig{
		Durable: "guarded", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 10 * time.Second, MaxDeliver: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	advisories := make(chan *nats.Msg, 4)
	sub, err := nc.ChanSubscribe(server.JSAdvisoryConsumerMsgTerminatedPre+".B.guarded", advisories)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	bodies := []string{"a", "b", "a", batchtest.Poison + "c", batchtest.Flaky + "d", "e"}
	for _, b := range bodies {
		if _, err := js.Publish(ctx, "B.orders", []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	h := batchtest.New(t)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- jetstreamguard.Consume(runCtx, cons, h, jetstreamguard.WithLogger(nil), jetstreamguard.WithBatch(len(bodies), 5*time.Second))
	}()
	waitFor(t, "every message to be settled", 20*time.Second, func() bool {
		info, err := cons.Info(ctx)
		return err == nil && len(h.Calls()) >= 2 && info.NumAckPending == 0 && info.NumPending == 0
	})
	stop()
	if err := <-done; err != nil {
		t.Errorf("Consume = %v", err)
	}

	calls := h.Calls()
	first := calls[0]
	if len(first.Bodies) != len(bodies) {
		t.Fatalf("first call got %q, want the whole batch %q", first.Bodies, bodies)
	}
	permanent := func(err error) bool { return guard.Permanent(err) }
	flaky := func(err error) bool { return errors.Is(err, batchtest.ErrFlaky) && !guard.Permanent(err) }
	none := func(err error) bool { return err == nil }
	want := []struct {
		out guard.Outcome
		err func(error) bool
	}{
		{guard.Applied, none}, {guard.Applied, none}, {guard.Duplicate, none},
		{0, permanent}, {0, flaky}, {guard.Applied, none},
	}
	for i, w := range want {
		if r := first.Results[i]; r.Outcome != w.out || !w.err(r.Err) {
			t.Errorf("message %d (%s): %v, %v; want %v", i, bodies[i], r.Outcome, r.Err, w.out)
		}
	}
	if len(calls) != 2 || len(calls[1].Bodies) != 1 || calls[1].Bodies[0] != batchtest.Flaky+"d" || calls[1].Results[0].Err != nil {
		t.Errorf("calls after the first: %+v; want one redelivery of the failing message, applied", calls[1:])
	}
	wantEffects := map[string]int{"a": 1, "b": 1, batchtest.Flaky + "d": 1, "e": 1}
	if got := h.Effects(t); !maps.Equal(got, wantEffects) {
		t.Errorf("effects %v, want %v", got, wantEffects)
	}
	select {
	case m := <-advisories:
		var adv server.JSConsumerDeliveryTerminatedAdvisory
		if err := json.Unmarshal(m.Data, &adv); err != nil {
			t.Fatal(err)
		}
		if adv.StreamSeq != 4 {
			t.Errorf("terminated stream seq %d, want 4 (the poison message)", adv.StreamSeq)
		}
	case <-time.After(5 * time.Second):
		t.Error("no MSG_TERMINATED advisory for the poison message")
	}
}

// TestHandleBatchActions checks HandleBatch's answer, one action per
// message, on messages fetched by the caller.
func TestHandleBatchActions(t *testing.T) {
	_, js := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "H", Subjects: []string{"H.>"}}); err != nil {
		t.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "H", jetstream.ConsumerConfig{Durable: "guarded", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{"x", batchtest.Poison + "y", "x", batchtest.Flaky + "z"}
	for _, b := range bodies {
		if _, err := js.Publish(ctx, "H.orders", []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := cons.Fetch(len(bodies), jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []jetstream.Msg
	for m := range b.Messages() {
		msgs = append(msgs, m)
	}
	if len(msgs) != len(bodies) {
		t.Fatalf("fetched %d messages, want %d", len(msgs), len(bodies))
	}
	got := jetstreamguard.HandleBatch(ctx, msgs, batchtest.New(t), jetstreamguard.WithLogger(nil))
	want := []jetstreamguard.Action{jetstreamguard.Ack, jetstreamguard.Term, jetstreamguard.Ack, jetstreamguard.Nak}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d (%s): %v, want %v", i, bodies[i], got[i], want[i])
		}
	}
}
