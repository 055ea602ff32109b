package amqpguard_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/amqpguard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// dial connects to the RabbitMQ of IDEM_TEST_AMQP (skipping the test when it
// is unset, failing under CI=true).
func dial(t *testing.T) *amqp.Connection {
	t.Helper()
	url := guardtest.Env(t, "IDEM_TEST_AMQP")
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("RabbitMQ at IDEM_TEST_AMQP: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func channel(t *testing.T, conn *amqp.Connection) *amqp.Channel {
	t.Helper()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	return ch
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// topology declares a queue whose dead-letter exchange routes to a dead
// queue, both removed when the test ends. It returns the two queue names.
func topology(t *testing.T, conn *amqp.Connection) (queue, dead string) {
	t.Helper()
	ch := channel(t, conn)
	base := fmt.Sprintf("idem-test-%s-%d", unsafeName.ReplaceAllString(t.Name(), "-"), time.Now().UnixNano())
	queue, dead, dlx := base, base+".dead", base+".dlx"
	must(t, ch.ExchangeDeclare(dlx, "fanout", false, false, false, false, nil))
	_, err := ch.QueueDeclare(dead, false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind(dead, "", dlx, false, nil))
	_, err = ch.QueueDeclare(queue, false, false, false, false, amqp.Table{"x-dead-letter-exchange": dlx})
	must(t, err)
	t.Cleanup(func() {
		ch, err := conn.Channel()
		if err != nil {
			return
		}
		defer ch.Close()
		_, _ = ch.QueueDelete(queue, false, false, false)
		_, _ = ch.QueueDelete(dead, false, false, false)
		_ = ch.ExchangeDelete(dlx, false, false)
	})
	return queue, dead
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func publish(t *testing.T, ch *amqp.Channel, queue string, bodies ...string) {
	t.Helper()
	for _, b := range bodies {
		must(t, ch.PublishWithContext(context.Background(), "", queue, false, false, amqp.Publishing{Body: []byte(b), MessageId: b}))
	}
}

// drain reads every ready message of queue without consuming it for good
// (it acks what it reads) and returns the bodies and x-death reasons.
func drain(t *testing.T, conn *amqp.Connection, queue string) (bodies, reasons []string) {
	t.Helper()
	ch := channel(t, conn)
	for {
		d, ok, err := ch.Get(queue, true)
		must(t, err)
		if !ok {
			return bodies, reasons
		}
		bodies = append(bodies, string(d.Body))
		reason := ""
		if deaths, ok := d.Headers["x-death"].([]any); ok && len(deaths) > 0 {
			if death, ok := deaths[0].(amqp.Table); ok {
				reason, _ = death["reason"].(string)
			}
		}
		reasons = append(reasons, reason)
	}
}

type step struct {
	out guard.Outcome
	err error
}

// script answers, per body, its steps one call at a time (Applied past the
// last) and records when each call started.
type script struct {
	mu    sync.Mutex
	steps map[string][]step
	calls map[string][]time.Time
}

func (s *script) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string][]time.Time{}
	}
	k := string(body)
	n := len(s.calls[k])
	s.calls[k] = append(s.calls[k], time.Now())
	st := step{out: guard.Applied}
	if n < len(s.steps[k]) {
		st = s.steps[k][n]
	}
	s.mu.Unlock()
	return st.out, st.err
}

func (s *script) count() (total int, per map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	per = map[string]int{}
	for k, v := range s.calls {
		per[k] = len(v)
		total += len(v)
	}
	return total, per
}

func (s *script) gap(body string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls[body]
	if len(c) < 2 {
		return -1
	}
	return c[1].Sub(c[0])
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

func TestRabbitMQ(t *testing.T) {
	conn := dial(t)
	inProgress := func(d time.Duration) error { return &guard.InProgressError{Consumer: "send_sms", RetryAfter: d} }
	cases := []struct {
		name   string
		bodies []string
		steps  map[string][]step
		opts   []amqpguard.Option
		calls  map[string]int
		gaps   map[string][2]time.Duration // min, max between first and second call
		dead   []string
	}{
		{name: "applied and duplicate are acked", bodies: []string{"a", "b"},
			steps: map[string][]step{"a": {{out: guard.Applied}}, "b": {{out: guard.Duplicate}}},
			calls: map[string]int{"a": 1, "b": 1}},
		{name: "permanent is dead-lettered", bodies: []string{"ok", "conflict", "invalid", "failed"},
			steps: map[string][]step{
				"conflict": {{err: fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict)}},
				"invalid":  {{err: fmt.Errorf("%w: missing sku", guard.ErrInvalidMessage)}},
				"failed":   {{err: storekit.StateError(guard.ErrFailed, "deduct_inventory", "out of stock", nil)}},
			},
			calls: map[string]int{"ok": 1, "conflict": 1, "invalid": 1, "failed": 1},
			dead:  []string{"conflict", "invalid", "failed"}},
		{name: "transient is redelivered after the retry delay", bodies: []string{"a"},
			steps: map[string][]step{"a": {{err: errors.New("database is down")}, {err: errors.New("database is down")}}},
			opts:  []amqpguard.Option{amqpguard.WithRetryDelay(250 * time.Millisecond)},
			calls: map[string]int{"a": 3}, gaps: map[string][2]time.Duration{"a": {240 * time.Millisecond, 5 * time.Second}}},
		{name: "in progress is redelivered after RetryAfter", bodies: []string{"a"},
			steps: map[string][]step{"a": {{err: inProgress(600 * time.Millisecond)}}},
			calls: map[string]int{"a": 2}, gaps: map[string][2]time.Duration{"a": {580 * time.Millisecond, 5 * time.Second}}},
		{name: "in progress wait is bounded", bodies: []string{"a"},
			steps: map[string][]step{"a": {{err: inProgress(time.Hour)}}},
			opts:  []amqpguard.Option{amqpguard.WithMaxRequeueDelay(300 * time.Millisecond)},
			calls: map[string]int{"a": 2}, gaps: map[string][2]time.Duration{"a": {280 * time.Millisecond, 5 * time.Second}}},
		{name: "panic is requeued", bodies: []string{"a"},
			opts:  []amqpguard.Option{amqpguard.WithRetryDelay(0)},
			calls: map[string]int{"a": 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			queue, dead := topology(t, conn)
			publish(t, channel(t, conn), queue, c.bodies...)
			var h guard.Handler
			s := &script{steps: c.steps}
			h = s
			if c.name == "panic is requeued" {
				panicked := false
				h = guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
					out, err := s.Handle(ctx, body)
					if !panicked {
						panicked = true
						panic("handler bug")
					}
					return out, err
				})
			}
			want := 0
			for _, n := range c.calls {
				want += n
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			opts := append([]amqpguard.Option{amqpguard.WithLogger(nil)}, c.opts...)
			go func() { done <- amqpguard.Consume(ctx, channel(t, conn), queue, h, opts...) }()
			waitFor(t, fmt.Sprintf("%d handler calls", want), 20*time.Second, func() bool { n, _ := s.count(); return n >= want })
			// No wait for calls that should not come: a delivery requeued
			// instead of settled is either handled again before the cancel
			// (the counts below differ) or requeued by it (the queue is not
			// empty below).
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Consume returned %v after cancel", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Consume did not return after cancel")
			}

			if _, per := s.count(); fmt.Sprint(per) != fmt.Sprint(c.calls) {
				t.Errorf("calls per message %v, want %v", per, c.calls)
			}
			for body, g := range c.gaps {
				if got := s.gap(body); got < g[0] || got > g[1] {
					t.Errorf("%s redelivered after %v, want between %v and %v", body, got, g[0], g[1])
				}
			}
			if left, _ := drain(t, conn, queue); len(left) != 0 {
				t.Errorf("queue still holds %q: not acked", left)
			}
			gotDead, reasons := drain(t, conn, dead)
			if fmt.Sprint(gotDead) != fmt.Sprint(c.dead) {
				t.Errorf("dead-letter queue holds %q, want %q", gotDead, c.dead)
			}
			for i, r := range reasons {
				if r != "rejected" {
					t.Errorf("dead-lettered %q with x-death reason %q, want rejected", gotDead[i], r)
				}
			}
		})
	}
}

func TestRabbitMQConcurrency(t *testing.T) {
	conn := dial(t)
	queue, _ := topology(t, conn)
	bodies := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}
	publish(t, channel(t, conn), queue, bodies...)
	// The first handlers wait for each other until three run at once: the
	// concurrency is reached by events, not by handlers slow enough to
	// overlap. Past that the gate is open.
	const concurrency = 3
	var (
		mu               sync.Mutex
		cur, peak, calls int
		opened           bool
		full             = make(chan struct{})
	)
	h := guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
		mu.Lock()
		cur++
		calls++
		peak = max(peak, cur)
		if cur == concurrency && !opened {
			opened = true
			close(full)
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			cur--
			mu.Unlock()
		}()
		select {
		case <-full:
			return guard.Applied, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- amqpguard.Consume(ctx, channel(t, conn), queue, h, amqpguard.WithLogger(nil), amqpguard.WithConcurrency(concurrency))
	}()
	select {
	case <-full:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d handlers never ran at once", concurrency)
	}
	waitFor(t, "every message", 20*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return calls >= len(bodies) && cur == 0
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != concurrency {
		t.Errorf("peak concurrency %d, want %d", peak, concurrency)
	}
	if calls != len(bodies) {
		t.Errorf("%d calls for %d messages", calls, len(bodies))
	}
	if left, _ := drain(t, conn, queue); len(left) != 0 {
		t.Errorf("queue still holds %q", left)
	}
}

// TestRabbitMQCancel cancels Consume while a handler runs and while more
// deliveries wait in the prefetch buffer: the handler sees the cancellation,
// Consume returns nil, and every message is back in the queue.
func TestRabbitMQCancel(t *testing.T) {
	conn := dial(t)
	queue, dead := topology(t, conn)
	publish(t, channel(t, conn), queue, "a", "b", "c")
	started := make(chan struct{}, 3)
	h := guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
		started <- struct{}{}
		<-ctx.Done()
		return 0, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ch := channel(t, conn)
	go func() {
		done <- amqpguard.Consume(ctx, ch, queue, h, amqpguard.WithLogger(nil), amqpguard.WithConcurrency(2), amqpguard.WithRetryDelay(time.Hour))
	}()
	for range 2 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("handlers not called")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Consume: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Consume did not return after cancel (a requeue waited for its delay?)")
	}
	// Settled while the channel is still open: the queue has them back.
	waitFor(t, "the messages to be requeued", 5*time.Second, func() bool {
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, amqp.Table{"x-dead-letter-exchange": queue + ".dlx"})
		return err == nil && q.Messages == 3
	})
	if d, _ := drain(t, conn, dead); len(d) != 0 {
		t.Errorf("dead-lettered on cancel: %q", d)
	}
}

// TestRabbitMQChannelClosed: Consume returns an error when its channel is
// closed under it.
func TestRabbitMQChannelClosed(t *testing.T) {
	conn := dial(t)
	queue, _ := topology(t, conn)
	ch, err := conn.Channel()
	must(t, err)
	// A first message handled says Consume is consuming: then the channel
	// closes under it.
	publish(t, channel(t, conn), queue, "m")
	s := &script{}
	done := make(chan error, 1)
	go func() {
		done <- amqpguard.Consume(context.Background(), ch, queue, s, amqpguard.WithLogger(nil))
	}()
	waitFor(t, "the first message", 10*time.Second, func() bool { n, _ := s.count(); return n == 1 })
	ch.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Consume returned nil after its channel was closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Consume did not return after its channel was closed")
	}
}

// TestRabbitMQMissingQueue: Consume reports a queue that does not exist.
func TestRabbitMQMissingQueue(t *testing.T) {
	conn := dial(t)
	ch, err := conn.Channel()
	must(t, err)
	defer ch.Close()
	err = amqpguard.Consume(context.Background(), ch, "idem-test-no-such-queue", &script{}, amqpguard.WithLogger(nil))
	if err == nil {
		t.Fatal("Consume of a missing queue returned nil")
	}
}
