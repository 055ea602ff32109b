package jetstreamguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/jetstreamguard"
)

// startJetStream runs an embedded nats-server with JetStream on a random
// loopback port and a temporary store, stopped when the test ends.
func startJetStream(t testing.TB) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		JetStream: true,
		StoreDir:  t.TempDir(),
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// step is what the scripted handler does on one delivery.
type step struct {
	out   guard.Outcome
	err   error
	sleep time.Duration
	panic bool
}

// script is a handler that plays its steps, one per call, and records when
// each call started. Past the last step it answers Applied.
type script struct {
	mu    sync.Mutex
	steps []step
	calls []time.Time
}

func (s *script) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	s.mu.Lock()
	n := len(s.calls)
	s.calls = append(s.calls, time.Now())
	st := step{out: guard.Applied}
	if n < len(s.steps) {
		st = s.steps[n]
	}
	s.mu.Unlock()
	if st.sleep > 0 {
		select {
		case <-time.After(st.sleep):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if st.panic {
		panic("handler bug")
	}
	return st.out, st.err
}

func (s *script) times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.calls...)
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestJetStream(t *testing.T) {
	nc, js := startJetStream(t)
	cases := []struct {
		name    string
		steps   []step
		ackWait time.Duration
		opts    []jetstreamguard.Option
		calls   int           // deliveries the handler sees in total
		minGap  time.Duration // between the first and the second call
		maxGap  time.Duration
		term    string // expected termination reason (substring)
	}{
		{name: "applied is acked", steps: []step{{out: guard.Applied}}, ackWait: 400 * time.Millisecond, calls: 1},
		{name: "duplicate is acked", steps: []step{{out: guard.Duplicate}}, ackWait: 400 * time.Millisecond, calls: 1},
		{name: "in progress is redelivered after RetryAfter",
			steps:   []step{{err: &guard.InProgressError{Consumer: "c", RetryAfter: 700 * time.Millisecond}}},
			ackWait: 10 * time.Second, calls: 2, minGap: 650 * time.Millisecond, maxGap: 5 * time.Second},
		{name: "permanent is terminated",
			steps:   []step{{err: fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict)}},
			ackWait: 400 * time.Millisecond, calls: 1, term: "key seen before with a different fingerprint"},
		{name: "invalid message is terminated",
			steps:   []step{{err: fmt.Errorf("%w: missing order_id", guard.ErrInvalidMessage)}},
			ackWait: 400 * time.Millisecond, calls: 1, term: "missing order_id"},
		{name: "transient is redelivered at once",
			steps:   []step{{err: errors.New("database is down")}},
			ackWait: 10 * time.Second, calls: 2, maxGap: 3 * time.Second},
		{name: "transient with nak delay",
			steps:   []step{{err: errors.New("database is down")}},
			opts:    []jetstreamguard.Option{jetstreamguard.WithNakDelay(600 * time.Millisecond)},
			ackWait: 10 * time.Second, calls: 2, minGap: 550 * time.Millisecond, maxGap: 5 * time.Second},
		{name: "long handler kept alive beyond AckWait",
			steps:   []step{{sleep: 1800 * time.Millisecond, out: guard.Applied}},
			ackWait: 500 * time.Millisecond, calls: 1},
		{name: "panic is naked and redelivered",
			steps:   []step{{panic: true}},
			ackWait: 10 * time.Second, calls: 2, maxGap: 3 * time.Second},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			stream := fmt.Sprintf("S%d", i)
			if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{stream + ".>"}}); err != nil {
				t.Fatal(err)
			}
			cons, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
				Durable: "guarded", AckPolicy: jetstream.AckExplicitPolicy, AckWait: c.ackWait, MaxDeliver: 10,
			})
			if err != nil {
				t.Fatal(err)
			}
			var advisories chan *nats.Msg
			if c.term != "" {
				advisories = make(chan *nats.Msg, 4)
				sub, err := nc.ChanSubscribe(server.JSAdvisoryConsumerMsgTerminatedPre+"."+stream+".guarded", advisories)
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Unsubscribe()
			}

			h := &script{steps: c.steps}
			opts := append([]jetstreamguard.Option{jetstreamguard.WithLogger(nil)}, c.opts...)
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- jetstreamguard.Consume(runCtx, cons, h, opts...) }()

			if _, err := js.Publish(ctx, stream+".msg", []byte(`{"order_id":"o1"}`)); err != nil {
				t.Fatal(err)
			}
			settled := func() bool {
				info, err := cons.Info(ctx)
				return err == nil && len(h.times()) >= c.calls && info.NumAckPending == 0 && info.NumPending == 0
			}
			// Settled — nothing pending, nothing waiting for an ack or a
			// redelivery (a nak with delay stays ack-pending until it is
			// redelivered) — nothing more can arrive: no wait for a quiet
			// while.
			waitFor(t, "the message to be settled", 20*time.Second, settled)

			calls := h.times()
			if len(calls) != c.calls {
				t.Errorf("handler called %d times, want %d", len(calls), c.calls)
			}
			if len(calls) >= 2 {
				gap := calls[1].Sub(calls[0])
				if gap < c.minGap || (c.maxGap > 0 && gap > c.maxGap) {
					t.Errorf("redelivered after %v, want between %v and %v", gap, c.minGap, c.maxGap)
				}
			}
			info, err := cons.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.NumAckPending != 0 || info.NumPending != 0 {
				t.Errorf("consumer has %d ack-pending, %d pending messages", info.NumAckPending, info.NumPending)
			}
			if c.calls == 1 && info.NumRedelivered != 0 {
				t.Errorf("%d redelivered messages, want none", info.NumRedelivered)
			}
			if c.term != "" {
				select {
				case m := <-advisories:
					var adv server.JSConsumerDeliveryTerminatedAdvisory
					if err := json.Unmarshal(m.Data, &adv); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(adv.Reason, c.term) || adv.StreamSeq != 1 {
						t.Errorf("terminated seq %d with reason %q, want seq 1 and %q", adv.StreamSeq, adv.Reason, c.term)
					}
				case <-time.After(5 * time.Second):
					t.Error("no MSG_TERMINATED advisory")
				}
			}

			stop()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Consume returned %v after cancel", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Consume did not return after its context was cancelled")
			}
		})
	}
}

// TestConsumeCancelInFlight cancels Consume while a handler runs: the handler
// sees the cancellation, the message is naked, Consume returns, and a new
// Consume gets the message again.
func TestConsumeCancelInFlight(t *testing.T) {
	_, js := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "C", Subjects: []string{"C.>"}}); err != nil {
		t.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "C", jetstream.ConsumerConfig{
		Durable: "guarded", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var sawCancel bool
	blocking := guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
		close(started)
		<-ctx.Done()
		sawCancel = true
		return 0, ctx.Err()
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- jetstreamguard.Consume(runCtx, cons, blocking, jetstreamguard.WithLogger(nil)) }()
	if _, err := js.Publish(ctx, "C.msg", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("handler not called")
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Consume: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Consume did not return")
	}
	if !sawCancel {
		t.Error("Consume returned before its handler did")
	}

	// AckWait is 30s: only the nak can bring the message back this soon.
	h := &script{}
	runCtx2, stop2 := context.WithCancel(ctx)
	defer stop2()
	go func() { _ = jetstreamguard.Consume(runCtx2, cons, h, jetstreamguard.WithLogger(nil)) }()
	waitFor(t, "the naked message to come back", 10*time.Second, func() bool { return len(h.times()) == 1 })
}

// TestConsumeConsumerDeleted: Consume returns an error when consuming stops
// on its own.
func TestConsumeConsumerDeleted(t *testing.T) {
	_, js := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "D", Subjects: []string{"D.>"}}); err != nil {
		t.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "D", jetstream.ConsumerConfig{Durable: "guarded", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	h := &script{}
	go func() {
		done <- jetstreamguard.Consume(ctx, cons, h, jetstreamguard.WithLogger(nil),
			jetstreamguard.WithConsumeOptions(jetstream.PullHeartbeat(500*time.Millisecond), jetstream.PullExpiry(2*time.Second)))
	}()
	// A first message handled says Consume is consuming: then the consumer
	// is deleted under it.
	if _, err := js.Publish(ctx, "D.msg", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first message", 10*time.Second, func() bool { return len(h.times()) == 1 })
	if err := js.DeleteConsumer(ctx, "D", "guarded"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Consume returned nil after its consumer was deleted")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Consume did not return after its consumer was deleted")
	}
}
