package jetstreamguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// DefaultAckWait is the acknowledgement wait assumed when neither WithAckWait
// nor the consumer's info gives one: JetStream's own default.
const DefaultAckWait = 30 * time.Second

// MaxReasonLen is the longest reason, in bytes, passed to TermWithReason; a
// longer error text is cut at a character boundary and ends with "…".
const MaxReasonLen = 256

// ackTimeout bounds a DoubleAck round trip.
const ackTimeout = 5 * time.Second

// Action is what the adapter did with a message.
type Action int

// The actions, one per row of the mapping table (see the package doc).
const (
	// Ack: the handler answered Applied or Duplicate; the message was
	// acknowledged (Ack, or DoubleAck with WithDoubleAck).
	Ack Action = iota + 1
	// NakInProgress: another worker holds the key's lease; the message was
	// naked with the lease's RetryAfter as delay.
	NakInProgress
	// Term: the error is permanent (guard.Permanent); the message was
	// terminated with the error text as reason and is never redelivered.
	Term
	// Nak: a transient error (or a recovered panic); the message was naked,
	// with the WithNakDelay / WithNakBackoff delay if one is set.
	Nak
)

// String returns "ack", "nak-in-progress", "term" or "nak".
func (a Action) String() string {
	return adapt.EnumString(int(a), "action", "ack", "nak-in-progress", "term", "nak")
}

// Option configures the adapter.
type Option func(*config)

type config struct {
	logger    *slog.Logger
	ackWait   time.Duration // 0: from the consumer, else DefaultAckWait
	nakDelay  func(delivered uint64) time.Duration
	timeout   time.Duration
	doubleAck bool
	consume   []jetstream.PullConsumeOpt
	batch     int           // > 1: Consume fetches batches of this many
	batchWait time.Duration // how long a fetch waits to fill a batch
}

func newConfig(opts []Option) config {
	c := config{logger: slog.Default()}
	adapt.Configure(&c, opts)
	c.logger = adapt.Logger(c.logger)
	return c
}

// WithLogger sets the logger (default slog.Default()). Acks and in-progress
// naks log at Debug, transient naks and terminations at Warn, failed
// acknowledgements and recovered panics at Error. A nil logger discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithAckWait sets the consumer's AckWait, which paces the heartbeat: while
// the handler runs, msg.InProgress() is sent every d/2. Without it, Consume
// reads the consumer's AckWait (the shortest of AckWait and BackOff) and
// Handler and Handle assume DefaultAckWait. A value ≤ 0 is ignored.
func WithAckWait(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.ackWait = d
		}
	}
}

// WithNakDelay naks transient errors with NakWithDelay(d) instead of a plain
// Nak, which JetStream redelivers at once. A value ≤ 0 restores the plain Nak.
func WithNakDelay(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.nakDelay = nil
			return
		}
		c.nakDelay = func(uint64) time.Duration { return d }
	}
}

// WithNakBackoff naks transient errors with NakWithDelay(f(n)), where n is
// the message's delivery count (1 for the first delivery), so the delay can
// grow with each redelivery. A result ≤ 0 naks without delay.
func WithNakBackoff(f func(delivered uint64) time.Duration) Option {
	return func(c *config) { c.nakDelay = f }
}

// WithTimeout bounds each call of the handler: its context is cancelled
// after d, its error is then transient and the message naked. Default: no
// bound (the heartbeat keeps a slow handler's message alive).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDoubleAck acknowledges with DoubleAck, which waits for the server to
// confirm the ack: a redelivery after a lost ack is then reported as an error
// (logged) instead of going unnoticed. It costs a round trip per message.
func WithDoubleAck() Option { return func(c *config) { c.doubleAck = true } }

// WithConsumeOptions passes options to jetstream.Consumer.Consume (batch
// size, heartbeat, error handler…). Only Consume uses them.
func WithConsumeOptions(opts ...jetstream.PullConsumeOpt) Option {
	return func(c *config) { c.consume = append(c.consume, opts...) }
}

// DefaultBatchWait is how long a fetch of Consume waits for a batch to fill
// when WithBatch gives no wait.
const DefaultBatchWait = time.Second

// WithBatch turns batch consumption on: Consume fetches up to n messages at
// a time (Consumer.Fetch, waiting at most maxWait, DefaultBatchWait when
// ≤ 0, for the batch to fill), hands them to the handler in one call
// (HandleBatch of a guard.BatchHandler, else Handle once per message) and
// settles each message by its own answer, by the mapping table: a poison
// message is terminated or naked while the others are acked. The heartbeat
// keeps every message of the batch alive while it is handled.
// WithConsumeOptions is then unused. n ≤ 1 turns batching off.
func WithBatch(n int, maxWait time.Duration) Option {
	return func(c *config) {
		c.batch = n
		c.batchWait = maxWait
		if maxWait <= 0 {
			c.batchWait = DefaultBatchWait
		}
	}
}

// Handler returns a jetstream.MessageHandler that runs h on each message and
// settles it by the mapping table. Each message gets its own context, derived
// from context.Background() (bounded by WithTimeout). Give it to
// jetstream.Consumer.Consume or a push consumer; prefer Consume, which also
// stops cleanly and reads AckWait from the consumer.
func Handler(h guard.Handler, opts ...Option) jetstream.MessageHandler {
	c := newConfig(opts)
	return func(msg jetstream.Msg) { c.handle(context.Background(), msg, h) }
}

// Handle runs h on msg and settles msg by the mapping table, for loops that
// pull messages themselves (Fetch, Next, Messages). ctx is the parent of the
// handler's context. It returns what it did with msg.
func Handle(ctx context.Context, msg jetstream.Msg, h guard.Handler, opts ...Option) Action {
	c := newConfig(opts)
	return c.handle(ctx, msg, h)
}

// Consume runs h on the messages of the pull consumer c until ctx is done,
// one message at a time, settling each by the mapping table. The handler's
// context derives from ctx, so cancelling ctx aborts the message in flight,
// which is naked (the guard rolls its effect back or releases its claim) and
// redelivered to another worker.
//
// When ctx is done Consume stops pulling and drains its subscription:
// messages already pulled are not handled but naked, and a message whose
// handler returns after the stop is settled only once the subscription is
// closed, so that JetStream redelivers neither to this stopping consumer (where
// it would wait out AckWait) but to the next one. Consume then returns nil.
// It returns an error when Consume cannot start, or when consuming stops on
// its own (the consumer was deleted, the connection closed).
//
// AckWait, for the heartbeat, comes from WithAckWait or else the consumer's
// cached info.
func Consume(ctx context.Context, c jetstream.Consumer, h guard.Handler, opts ...Option) error {
	cfg := newConfig(opts)
	if cfg.ackWait == 0 {
		cfg.ackWait = consumerAckWait(c.CachedInfo())
	}
	if cfg.batch > 1 {
		return cfg.consumeBatches(ctx, c, h)
	}
	var s shutdown
	cc, err := c.Consume(func(msg jetstream.Msg) {
		if !s.enter(func() { _ = msg.Nak() }) { // not handled: let another worker have it
			return
		}
		defer s.inflight.Done()
		out, err := cfg.call(ctx, msg, h)
		s.hold(func() { cfg.settle(ctx, msg, out, err) })
	}, cfg.consume...)
	if err != nil {
		return fmt.Errorf("jetstreamguard: consume: %w", err)
	}
	var result error
	select {
	case <-ctx.Done():
	case <-cc.Closed():
		result = errors.New("jetstreamguard: consuming stopped (consumer deleted or connection closed)")
	}
	s.stop()
	cc.Drain()
	s.inflight.Wait()
	select {
	case <-cc.Closed():
	case <-time.After(drainTimeout):
	}
	s.release()
	return result
}

// consumerAckWait is the shortest redelivery wait of a consumer: AckWait, or
// a shorter BackOff step (JetStream then uses BackOff instead of AckWait).
func consumerAckWait(info *jetstream.ConsumerInfo) time.Duration {
	if info == nil {
		return DefaultAckWait
	}
	w := info.Config.AckWait
	for _, b := range info.Config.BackOff {
		if b > 0 && (w <= 0 || b < w) {
			w = b
		}
	}
	if w <= 0 {
		return DefaultAckWait
	}
	return w
}

// HandleBatch runs h on msgs in one call (HandleBatch of a
// guard.BatchHandler, else Handle once per message) and settles each
// message by its own answer, by the mapping table, for loops that fetch
// batches themselves (Fetch, FetchNoWait). The heartbeat keeps every
// message alive while h runs. It returns what it did with each message, in
// order.
func HandleBatch(ctx context.Context, msgs []jetstream.Msg, h guard.Handler, opts ...Option) []Action {
	c := newConfig(opts)
	return c.handleBatch(ctx, msgs, h)
}

// consumeBatches is Consume with batching on: fetch, handle, settle, until
// ctx is done.
func (c *config) consumeBatches(ctx context.Context, cons jetstream.Consumer, h guard.Handler) error {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, c.batchWait)
		b, err := cons.Fetch(c.batch, jetstream.FetchContext(fctx))
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("jetstreamguard: fetch: %w", err)
		}
		var msgs []jetstream.Msg
		for m := range b.Messages() {
			msgs = append(msgs, m)
		}
		cancel()
		if ctx.Err() != nil {
			for _, m := range msgs {
				_ = m.Nak() // not handled: let another worker have it now
			}
			return nil
		}
		if len(msgs) > 0 {
			c.handleBatch(ctx, msgs, h)
			continue
		}
		if err := b.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
			return fmt.Errorf("jetstreamguard: fetch: %w", err)
		}
	}
	return nil
}

func (c *config) handleBatch(parent context.Context, msgs []jetstream.Msg, h guard.Handler) []Action {
	stop := startHeartbeat(msgs, c.heartbeat(), c.logger)
	bodies := make([][]byte, len(msgs))
	for i, m := range msgs {
		bodies[i] = m.Data()
	}
	res := adapt.CallBatch(parent, "jetstreamguard", c.timeout, h, bodies)
	stop()
	acts := make([]Action, len(msgs))
	for i, m := range msgs {
		acts[i] = c.settle(parent, m, res[i].Outcome, res[i].Err)
	}
	return acts
}

// heartbeat is the interval of the in-progress heartbeat: half the AckWait.
func (c *config) heartbeat() time.Duration {
	if c.ackWait <= 0 {
		return DefaultAckWait / 2
	}
	return c.ackWait / 2
}

func (c *config) handle(parent context.Context, msg jetstream.Msg, h guard.Handler) Action {
	out, err := c.call(parent, msg, h)
	return c.settle(parent, msg, out, err)
}

// call runs h on msg, the heartbeat keeping msg alive meanwhile.
func (c *config) call(parent context.Context, msg jetstream.Msg, h guard.Handler) (guard.Outcome, error) {
	stop := startHeartbeat([]jetstream.Msg{msg}, c.heartbeat(), c.logger)
	defer stop()
	return adapt.Call(parent, "jetstreamguard", c.timeout, h, msg.Data())
}

// settle settles msg by the handler's answer (out, err), by the mapping
// table.
func (c *config) settle(parent context.Context, msg jetstream.Msg, out guard.Outcome, err error) Action {
	attrs := []any{slog.String("subject", msg.Subject())}
	delivered := uint64(1)
	if md, mdErr := msg.Metadata(); mdErr == nil {
		delivered = md.NumDelivered
		attrs = append(attrs, slog.Uint64("stream_seq", md.Sequence.Stream), slog.Uint64("delivered", md.NumDelivered))
	}

	switch v := adapt.Classify(err); v.Class {
	case adapt.Settle:
		var ackErr error
		if c.doubleAck {
			actx, acancel := context.WithTimeout(context.WithoutCancel(parent), ackTimeout)
			ackErr = msg.DoubleAck(actx)
			acancel()
		} else {
			ackErr = msg.Ack()
		}
		c.settled(parent, "ack", ackErr, slog.LevelDebug, "jetstreamguard: acked", append(attrs, slog.String("outcome", out.String())))
		return Ack
	case adapt.InProgress:
		c.settled(parent, "nak", msg.NakWithDelay(v.RetryAfter), slog.LevelDebug,
			"jetstreamguard: key in progress elsewhere, naked with delay",
			append(attrs, slog.Duration("delay", v.RetryAfter), slog.Any("error", err)))
		return NakInProgress
	case adapt.DeadLetter:
		c.settled(parent, "term", msg.TermWithReason(reason(err)), slog.LevelWarn,
			"jetstreamguard: permanent error, message terminated", append(attrs, slog.Any("error", err)))
		return Term
	default:
		var d time.Duration
		if c.nakDelay != nil {
			d = c.nakDelay(delivered)
		}
		var nakErr error
		if d > 0 {
			nakErr = msg.NakWithDelay(d)
		} else {
			nakErr = msg.Nak()
		}
		level := slog.LevelWarn
		if v.Panic != nil {
			level = slog.LevelError
			attrs = append(attrs, slog.String("stack", string(v.Panic.Stack)))
		}
		c.settled(parent, "nak", nakErr, level, "jetstreamguard: transient error, message naked",
			append(attrs, slog.Duration("delay", d), slog.Any("error", err)))
		return Nak
	}
}

// settled logs the settlement of a message, or the failure to send it (the
// server then redelivers the message after AckWait).
func (c *config) settled(ctx context.Context, op string, err error, level slog.Level, msg string, attrs []any) {
	adapt.LogSettled(ctx, c.logger, "jetstreamguard", op, err, level, msg, attrs)
}

// startHeartbeat sends InProgress() for each of msgs every interval until
// the returned stop is called; stop waits for the goroutine to end.
func startHeartbeat(msgs []jetstream.Msg, interval time.Duration, logger *slog.Logger) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, msg := range msgs {
					if err := msg.InProgress(); err != nil {
						logger.Debug("jetstreamguard: in-progress heartbeat failed", slog.String("subject", msg.Subject()), slog.Any("error", err))
					}
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// reason is err's text cut to MaxReasonLen bytes at a character boundary.
func reason(err error) string {
	s := err.Error()
	if len(s) <= MaxReasonLen {
		return s
	}
	const ellipsis = "…"
	cut := MaxReasonLen - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
