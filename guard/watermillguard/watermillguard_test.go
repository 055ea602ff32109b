package watermillguard_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/watermillguard"
)

func answer(out guard.Outcome, err error) guard.HandlerFunc {
	return func(context.Context, []byte) (guard.Outcome, error) { return out, err }
}

func TestHandlerMapping(t *testing.T) {
	inProgress := func(d time.Duration) error { return &guard.InProgressError{Consumer: "send_sms", RetryAfter: d} }
	transient := errors.New("database is down")
	type tc struct {
		name             string
		h                guard.Handler
		opts             []watermillguard.Option
		wantErr          error // nil: nil returned
		minWait, maxWait time.Duration
	}
	cases := []tc{
		{name: "applied", h: answer(guard.Applied, nil), maxWait: time.Second},
		{name: "duplicate", h: answer(guard.Duplicate, nil), maxWait: time.Second},
		{name: "in progress waits RetryAfter", h: answer(0, inProgress(150*time.Millisecond)), wantErr: guard.ErrInProgress,
			minWait: 140 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "in progress wait bounded", h: answer(0, inProgress(time.Hour)), opts: []watermillguard.Option{watermillguard.WithMaxRetryDelay(80 * time.Millisecond)},
			wantErr: guard.ErrInProgress, minWait: 70 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "transient at once", h: answer(0, transient), wantErr: transient, maxWait: time.Second},
		{name: "transient after retry delay", h: answer(0, transient), opts: []watermillguard.Option{watermillguard.WithRetryDelay(100 * time.Millisecond)},
			wantErr: transient, minWait: 90 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "timeout", h: guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}), opts: []watermillguard.Option{watermillguard.WithTimeout(30 * time.Millisecond)}, wantErr: context.DeadlineExceeded, maxWait: 2 * time.Second},
	}
	for _, perm := range []error{guard.ErrKeyConflict, guard.ErrFailed, guard.ErrUncertain, guard.ErrLeaseLost,
		guard.ErrPartialEffect, guard.ErrInvalidMessage, guard.ErrEmptyKey} {
		cases = append(cases, tc{name: "permanent " + perm.Error(), h: answer(0, fmt.Errorf("c: %w", perm)),
			opts: []watermillguard.Option{watermillguard.WithRetryDelay(time.Hour)}, wantErr: perm, maxWait: time.Second})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]watermillguard.Option{watermillguard.WithLogger(nil)}, c.opts...)
			for _, via := range []string{"Handler", "Middleware"} {
				msg := message.NewMessage("uuid-1", []byte(`{"order_id":"o1"}`))
				start := time.Now()
				var err error
				if via == "Handler" {
					err = watermillguard.Handler(c.h, opts...)(msg)
				} else {
					next := func(m *message.Message) ([]*message.Message, error) {
						_, err := c.h.Handle(m.Context(), m.Payload)
						return []*message.Message{message.NewMessage("follow-up", nil)}, err
					}
					var produced []*message.Message
					produced, err = watermillguard.Middleware(opts...)(next)(msg)
					if (err == nil) != (len(produced) == 1) {
						t.Errorf("%s: produced %d messages with error %v", via, len(produced), err)
					}
				}
				took := time.Since(start)
				switch {
				case c.wantErr == nil && err != nil:
					t.Errorf("%s: returned %v, want nil (ack)", via, err)
				case c.wantErr != nil && !errors.Is(err, c.wantErr):
					t.Errorf("%s: returned %v, want %v (nack)", via, err, c.wantErr)
				}
				if took < c.minWait || took > c.maxWait {
					t.Errorf("%s: took %v, want between %v and %v", via, took, c.minWait, c.maxWait)
				}
				if msg.Context().Err() != nil {
					t.Errorf("%s: the message's context was left cancelled", via)
				}
			}
		})
	}
}

// script answers, per payload, its steps one call at a time (Applied past
// the last) and records when each call started.
type script struct {
	mu    sync.Mutex
	steps map[string][]stepFn
	calls map[string][]time.Time
}

type stepFn func() (guard.Outcome, error)

func (s *script) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	s.mu.Lock()
	k := string(body)
	n := len(s.calls[k])
	s.calls[k] = append(s.calls[k], time.Now())
	st := stepFn(func() (guard.Outcome, error) { return guard.Applied, nil })
	if n < len(s.steps[k]) {
		st = s.steps[k][n]
	}
	s.mu.Unlock()
	return st()
}

func (s *script) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for k, v := range s.calls {
		m[k] = len(v)
	}
	return m
}

func (s *script) gap(k string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls[k]) < 2 {
		return -1
	}
	return s.calls[k][1].Sub(s.calls[k][0])
}

func ret(out guard.Outcome, err error) stepFn {
	return func() (guard.Outcome, error) { return out, err }
}

// settlements records, as the outermost router middleware, what the router
// does with each delivery: it acks when the handlers' answer is nil and
// nacks (gochannel then delivers the message again) otherwise. A payload
// whose last delivery was acked is settled for good: nothing more of it can
// arrive, so tests wait for that event rather than for a quiet while.
type settlements struct {
	mu      sync.Mutex
	acked   map[string]bool
	changed chan struct{}
}

func newSettlements() *settlements {
	return &settlements{acked: map[string]bool{}, changed: make(chan struct{}, 1)}
}

func (s *settlements) middleware(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		produced, err := h(msg)
		s.mu.Lock()
		s.acked[string(msg.Payload)] = err == nil
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
		return produced, err
	}
}

// wait waits until every payload is acked, or fails after timeout.
func (s *settlements) wait(t *testing.T, payloads []string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		all := true
		for _, p := range payloads {
			all = all && s.acked[p]
		}
		got := fmt.Sprint(s.acked)
		s.mu.Unlock()
		if all {
			return
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("after %v, acked %s; want all of %q", timeout, got, payloads)
		}
	}
}

// TestRouter runs Handler in a real Router over gochannel, with PoisonQueue
// and Recoverer as the package doc recommends.
func TestRouter(t *testing.T) {
	cases := []struct {
		name     string
		steps    map[string][]stepFn
		opts     []watermillguard.Option
		calls    map[string]int
		gaps     map[string][2]time.Duration
		poisoned map[string]string // payload → reason substring
	}{
		{name: "applied and duplicate are acked",
			steps: map[string][]stepFn{"a": {ret(guard.Applied, nil)}, "b": {ret(guard.Duplicate, nil)}},
			calls: map[string]int{"a": 1, "b": 1}},
		{name: "permanent goes to the poison queue",
			steps: map[string][]stepFn{
				"ok":       {ret(guard.Applied, nil)},
				"conflict": {ret(0, fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict))},
				"invalid":  {ret(0, fmt.Errorf("%w: missing sku", guard.ErrInvalidMessage))},
			},
			calls: map[string]int{"ok": 1, "conflict": 1, "invalid": 1},
			poisoned: map[string]string{
				"conflict": "key seen before with a different fingerprint",
				"invalid":  "missing sku",
			}},
		{name: "transient is nacked and redelivered",
			steps: map[string][]stepFn{"a": {ret(0, errors.New("database is down")), ret(0, errors.New("database is down"))}},
			opts:  []watermillguard.Option{watermillguard.WithRetryDelay(150 * time.Millisecond)},
			calls: map[string]int{"a": 3}, gaps: map[string][2]time.Duration{"a": {140 * time.Millisecond, 3 * time.Second}}},
		{name: "in progress is redelivered after RetryAfter",
			steps: map[string][]stepFn{"a": {ret(0, &guard.InProgressError{RetryAfter: 400 * time.Millisecond})}},
			calls: map[string]int{"a": 2}, gaps: map[string][2]time.Duration{"a": {380 * time.Millisecond, 3 * time.Second}}},
		{name: "in progress wait is bounded",
			steps: map[string][]stepFn{"a": {ret(0, &guard.InProgressError{RetryAfter: time.Hour})}},
			opts:  []watermillguard.Option{watermillguard.WithMaxRetryDelay(200 * time.Millisecond)},
			calls: map[string]int{"a": 2}, gaps: map[string][2]time.Duration{"a": {190 * time.Millisecond, 3 * time.Second}}},
		{name: "panic is recovered and redelivered, not poisoned",
			steps: map[string][]stepFn{"a": {func() (guard.Outcome, error) { panic("handler bug") }}},
			calls: map[string]int{"a": 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logger := watermill.NopLogger{}
			pubSub := gochannel.NewGoChannel(gochannel.Config{}, logger)
			defer pubSub.Close()
			router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 5 * time.Second}, logger)
			if err != nil {
				t.Fatal(err)
			}
			poison, err := watermillguard.PoisonQueue(pubSub, "orders.poison")
			if err != nil {
				t.Fatal(err)
			}
			settled := newSettlements()
			router.AddMiddleware(settled.middleware, middleware.Recoverer, poison)
			s := &script{steps: c.steps, calls: map[string][]time.Time{}}
			opts := append([]watermillguard.Option{watermillguard.WithLogger(nil)}, c.opts...)
			router.AddConsumerHandler("deduct_inventory", "orders.created", pubSub, watermillguard.Handler(s, opts...))

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			poisoned, err := pubSub.Subscribe(ctx, "orders.poison")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- router.Run(ctx) }()
			<-router.Running()

			var payloads []string
			for p := range c.steps {
				payloads = append(payloads, p)
			}
			sort.Strings(payloads)
			for _, p := range payloads {
				if err := pubSub.Publish("orders.created", message.NewMessage(watermill.NewUUID(), []byte(p))); err != nil {
					t.Fatal(err)
				}
			}

			settled.wait(t, payloads, 15*time.Second)
			gotPoison := map[string]string{}
			for range c.poisoned {
				select {
				case m := <-poisoned:
					gotPoison[string(m.Payload)] = m.Metadata.Get(middleware.ReasonForPoisonedKey)
					m.Ack()
				case <-time.After(5 * time.Second):
					t.Fatalf("poison queue got %v, want %v", gotPoison, c.poisoned)
				}
			}
			if got := s.counts(); fmt.Sprint(got) != fmt.Sprint(c.calls) {
				t.Errorf("calls %v, want %v", got, c.calls)
			}
			for p, g := range c.gaps {
				if got := s.gap(p); got < g[0] || got > g[1] {
					t.Errorf("%s redelivered after %v, want between %v and %v", p, got, g[0], g[1])
				}
			}
			for p, reason := range c.poisoned {
				if !strings.Contains(gotPoison[p], reason) {
					t.Errorf("poisoned %q with reason %q, want one containing %q", p, gotPoison[p], reason)
				}
			}
			select {
			case m := <-poisoned:
				t.Errorf("unexpected poisoned message %q", m.Payload)
			default:
			}

			cancel()
			if err := router.Close(); err != nil {
				t.Error(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("router.Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("router did not stop")
			}
		})
	}
}

// TestMiddlewareInRouter adds Middleware to a handler of one's own that
// publishes a follow-up message: the follow-up goes out only once the guarded
// answer is nil, and a key in progress is redelivered after RetryAfter.
func TestMiddlewareInRouter(t *testing.T) {
	logger := watermill.NopLogger{}
	pubSub := gochannel.NewGoChannel(gochannel.Config{}, logger)
	defer pubSub.Close()
	router, err := message.NewRouter(message.RouterConfig{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	s := &script{calls: map[string][]time.Time{}, steps: map[string][]stepFn{
		"o1": {ret(0, &guard.InProgressError{RetryAfter: 200 * time.Millisecond})},
	}}
	handler := router.AddHandler("send_sms", "orders.created", pubSub, "sms.sent", pubSub,
		func(msg *message.Message) ([]*message.Message, error) {
			out, err := s.Handle(msg.Context(), msg.Payload)
			if err != nil {
				return []*message.Message{message.NewMessage(watermill.NewUUID(), []byte("must not be published"))}, err
			}
			return []*message.Message{message.NewMessage(watermill.NewUUID(), []byte(string(msg.Payload)+" "+out.String()))}, nil
		})
	handler.AddMiddleware(watermillguard.Middleware(watermillguard.WithLogger(nil)))
	settled := newSettlements()
	router.AddMiddleware(settled.middleware)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent, err := pubSub.Subscribe(ctx, "sms.sent")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = router.Run(ctx) }()
	<-router.Running()
	if err := pubSub.Publish("orders.created", message.NewMessage(watermill.NewUUID(), []byte("o1"))); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sent:
		if string(m.Payload) != "o1 applied" {
			t.Errorf("follow-up %q", m.Payload)
		}
		m.Ack()
	case <-time.After(10 * time.Second):
		t.Fatal("no follow-up message")
	}
	// Once o1 is acked nothing more of it is handled; a follow-up the
	// refused first call produced would have been published before it.
	settled.wait(t, []string{"o1"}, 10*time.Second)
	select {
	case m := <-sent:
		t.Errorf("second follow-up %q", m.Payload)
	default:
	}
	if n := s.counts()["o1"]; n != 2 {
		t.Errorf("o1 handled %d times, want 2 (in progress, then applied)", n)
	}
	if g := s.gap("o1"); g < 190*time.Millisecond {
		t.Errorf("redelivered after %v, want ≥ RetryAfter (200ms)", g)
	}
	_ = router.Close()
}
