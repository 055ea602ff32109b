package jetstreamguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/guard"
)

// fakeMsg records how a message was settled.
type fakeMsg struct {
	mu          sync.Mutex
	data        []byte
	delivered   uint64
	settles     []string
	inProgress  int
	afterSettle int // InProgress calls after the message was settled
	ackErr      error
	beats       chan struct{} // when not nil, gets a value on each InProgress
}

var _ jetstream.Msg = (*fakeMsg)(nil)

func (m *fakeMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{NumDelivered: m.delivered, Sequence: jetstream.SequencePair{Stream: 7, Consumer: 9}}, nil
}
func (m *fakeMsg) Data() []byte         { return m.data }
func (m *fakeMsg) Headers() nats.Header { return nil }
func (m *fakeMsg) Subject() string      { return "orders.created" }
func (m *fakeMsg) Reply() string        { return "$JS.ACK.x" }

func (m *fakeMsg) settle(s string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settles = append(m.settles, s)
	return m.ackErr
}
func (m *fakeMsg) Ack() error                         { return m.settle("ack") }
func (m *fakeMsg) DoubleAck(context.Context) error    { return m.settle("double-ack") }
func (m *fakeMsg) Nak() error                         { return m.settle("nak") }
func (m *fakeMsg) NakWithDelay(d time.Duration) error { return m.settle("nak " + d.String()) }
func (m *fakeMsg) Term() error                        { return m.settle("term") }
func (m *fakeMsg) TermWithReason(reason string) error { return m.settle("term " + reason) }
func (m *fakeMsg) InProgress() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inProgress++
	if len(m.settles) > 0 {
		m.afterSettle++
	}
	if m.beats != nil {
		select {
		case m.beats <- struct{}{}:
		default:
		}
	}
	return nil
}

func (m *fakeMsg) snapshot() (settles []string, inProgress, afterSettle int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.settles...), m.inProgress, m.afterSettle
}

func answer(out guard.Outcome, err error) guard.HandlerFunc {
	return func(context.Context, []byte) (guard.Outcome, error) { return out, err }
}

func TestHandleMapping(t *testing.T) {
	inProgress := &guard.InProgressError{Consumer: "send_sms", RetryAfter: 1500 * time.Millisecond}
	type tc struct {
		name      string
		h         guard.Handler
		opts      []Option
		delivered uint64
		want      Action
		settle    string
	}
	cases := []tc{
		{name: "applied", h: answer(guard.Applied, nil), want: Ack, settle: "ack"},
		{name: "duplicate", h: answer(guard.Duplicate, nil), want: Ack, settle: "ack"},
		{name: "applied double ack", h: answer(guard.Applied, nil), opts: []Option{WithDoubleAck()}, want: Ack, settle: "double-ack"},
		{name: "in progress", h: answer(0, inProgress), want: NakInProgress, settle: "nak 1.5s"},
		{name: "in progress wrapped", h: answer(0, fmt.Errorf("send_sms: %w", inProgress)), want: NakInProgress, settle: "nak 1.5s"},
		{name: "in progress ignores nak delay", h: answer(0, inProgress), opts: []Option{WithNakDelay(time.Minute)}, want: NakInProgress, settle: "nak 1.5s"},
		{name: "transient", h: answer(0, errors.New("connection refused")), want: Nak, settle: "nak"},
		{name: "transient nak delay", h: answer(0, errors.New("connection refused")), opts: []Option{WithNakDelay(2 * time.Second)}, want: Nak, settle: "nak 2s"},
		{name: "transient nak delay reset", h: answer(0, errors.New("connection refused")), opts: []Option{WithNakDelay(2 * time.Second), WithNakDelay(0)}, want: Nak, settle: "nak"},
		{name: "transient backoff", h: answer(0, errors.New("connection refused")), delivered: 3,
			opts: []Option{WithNakBackoff(func(n uint64) time.Duration { return time.Duration(n) * time.Second })}, want: Nak, settle: "nak 3s"},
		{name: "transient backoff zero", h: answer(0, errors.New("connection refused")),
			opts: []Option{WithNakBackoff(func(uint64) time.Duration { return 0 })}, want: Nak, settle: "nak"},
		{name: "timeout", h: guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}), opts: []Option{WithTimeout(20 * time.Millisecond)}, want: Nak, settle: "nak"},
		{name: "panic", h: guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { panic("boom") }), want: Nak, settle: "nak"},
	}
	for _, perm := range []error{guard.ErrKeyConflict, guard.ErrFailed, guard.ErrUncertain, guard.ErrLeaseLost,
		guard.ErrPartialEffect, guard.ErrInvalidMessage, guard.ErrEmptyKey} {
		err := fmt.Errorf("deduct_inventory: %w", perm)
		cases = append(cases, tc{name: "permanent " + perm.Error(), h: answer(0, err), want: Term, settle: "term " + err.Error()},
			tc{name: "permanent with nak delay " + perm.Error(), h: answer(0, err), opts: []Option{WithNakDelay(time.Second)}, want: Term, settle: "term " + err.Error()})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := &fakeMsg{data: []byte(`{}`), delivered: max(c.delivered, 1)}
			opts := append([]Option{WithLogger(nil)}, c.opts...)
			if got := Handle(context.Background(), msg, c.h, opts...); got != c.want {
				t.Errorf("Handle = %v, want %v", got, c.want)
			}
			settles, _, _ := msg.snapshot()
			if len(settles) != 1 || settles[0] != c.settle {
				t.Errorf("settled with %q, want exactly [%q]", settles, c.settle)
			}
		})
	}
}

func TestHandlerGetsBodyAndContext(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")
	var gotBody string
	var gotValue any
	h := guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		gotBody, gotValue = string(body), ctx.Value(key{})
		return guard.Applied, nil
	})
	Handle(parent, &fakeMsg{data: []byte(`{"order_id":"o1"}`), delivered: 1}, h, WithLogger(nil))
	if gotBody != `{"order_id":"o1"}` || gotValue != "v" {
		t.Errorf("handler saw body %q, ctx value %v", gotBody, gotValue)
	}
	// Handler (no parent) works too.
	msg := &fakeMsg{data: []byte(`x`), delivered: 1}
	Handler(h, WithLogger(nil))(msg)
	if s, _, _ := msg.snapshot(); len(s) != 1 || s[0] != "ack" || gotBody != "x" {
		t.Errorf("Handler: settles %q, body %q", s, gotBody)
	}
}

func TestHeartbeat(t *testing.T) {
	msg := &fakeMsg{data: []byte(`{}`), delivered: 1, beats: make(chan struct{}, 1)}
	// The handler runs until it has seen three heartbeats: however slow the
	// machine, the test waits for them, not for a time they should fit in.
	const want = 3
	h := guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
		for range want {
			select {
			case <-msg.beats:
			case <-time.After(10 * time.Second):
				return 0, errors.New("no heartbeat within 10s")
			}
		}
		return guard.Applied, nil
	})
	if got := Handle(context.Background(), msg, h, WithLogger(nil), WithAckWait(80*time.Millisecond)); got != Ack {
		t.Fatalf("Handle = %v", got)
	}
	settles, n, after := msg.snapshot()
	if n < want || fmt.Sprint(settles) != "[ack]" {
		t.Errorf("InProgress sent %d times, settled %q; want at least %d, then an ack", n, settles, want)
	}
	// Handle stops the heartbeat and waits for it before it settles, so
	// none can follow.
	if after != 0 {
		t.Errorf("%d heartbeats after the message was settled", after)
	}
}

func TestNoHeartbeatForFastHandler(t *testing.T) {
	msg := &fakeMsg{data: []byte(`{}`), delivered: 1}
	Handle(context.Background(), msg, answer(guard.Applied, nil), WithLogger(nil))
	if _, n, _ := msg.snapshot(); n != 0 {
		t.Errorf("InProgress sent %d times for a fast handler", n)
	}
}

func TestReasonTruncated(t *testing.T) {
	long := fmt.Errorf("%w: %s", guard.ErrInvalidMessage, strings.Repeat("é", 400))
	r := reason(long)
	if len(r) > MaxReasonLen || !utf8.ValidString(r) || !strings.HasSuffix(r, "…") || !strings.HasPrefix(r, "guard: invalid message: é") {
		t.Errorf("reason: %d bytes, valid %v: %q", len(r), utf8.ValidString(r), r)
	}
	if short := errors.New("short"); reason(short) != "short" {
		t.Errorf("short reason changed: %q", reason(short))
	}
	msg := &fakeMsg{data: []byte(`{}`), delivered: 1}
	Handle(context.Background(), msg, answer(0, long), WithLogger(nil))
	if s, _, _ := msg.snapshot(); len(s) != 1 || s[0] != "term "+r {
		t.Errorf("settles %q", s)
	}
}

func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	msg := &fakeMsg{data: []byte(`{}`), delivered: 2, ackErr: errors.New("connection closed")}
	if got := Handle(context.Background(), msg, answer(guard.Applied, nil), WithLogger(logger)); got != Ack {
		t.Fatalf("Handle = %v", got)
	}
	if out := buf.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "ack failed") || !strings.Contains(out, "connection closed") {
		t.Errorf("a failed ack was not logged as an error:\n%s", out)
	}
	buf.Reset()
	Handle(context.Background(), &fakeMsg{delivered: 1}, guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { panic("boom") }), WithLogger(logger))
	if out := buf.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "boom") || !strings.Contains(out, "stack=") {
		t.Errorf("a panic was not logged with its stack:\n%s", out)
	}
	buf.Reset()
	Handle(context.Background(), &fakeMsg{delivered: 1}, answer(0, guard.ErrFailed), WithLogger(logger))
	if out := buf.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "terminated") || !strings.Contains(out, "stream_seq=7") {
		t.Errorf("a termination was not logged as a warning:\n%s", out)
	}
}

func TestConsumerAckWait(t *testing.T) {
	for _, c := range []struct {
		name string
		info *jetstream.ConsumerInfo
		want time.Duration
	}{
		{"nil", nil, DefaultAckWait},
		{"unset", &jetstream.ConsumerInfo{}, DefaultAckWait},
		{"ack wait", &jetstream.ConsumerInfo{Config: jetstream.ConsumerConfig{AckWait: 5 * time.Second}}, 5 * time.Second},
		{"backoff shorter", &jetstream.ConsumerInfo{Config: jetstream.ConsumerConfig{AckWait: 5 * time.Second, BackOff: []time.Duration{2 * time.Second, 10 * time.Second}}}, 2 * time.Second},
		{"backoff only", &jetstream.ConsumerInfo{Config: jetstream.ConsumerConfig{BackOff: []time.Duration{3 * time.Second}}}, 3 * time.Second},
	} {
		if got := consumerAckWait(c.info); got != c.want {
			t.Errorf("%s: consumerAckWait = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestActionString(t *testing.T) {
	for a, want := range map[Action]string{Ack: "ack", NakInProgress: "nak-in-progress", Term: "term", Nak: "nak", 0: "action(0)"} {
		if a.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(a), a.String(), want)
		}
	}
}
