package kafkaguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
)

// Reader is the part of *kafka.Reader that Consume uses. The reader must
// belong to a consumer group (ReaderConfig.GroupID): only then can it commit.
type Reader interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Writer is the part of *kafka.Writer that dead-lettering uses. Give it a
// synchronous writer (Async false) that waits for the replicas
// (RequiredAcks: kafka.RequireAll), so a message is stored in the
// dead-letter topic before its offset is committed.
type Writer interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

var (
	_ Reader = (*kafka.Reader)(nil)
	_ Writer = (*kafka.Writer)(nil)
)

// Headers added to a dead-lettered message, after the original's headers.
const (
	HeaderError     = "idem-error"     // the handler's error text
	HeaderTopic     = "idem-topic"     // the original topic
	HeaderPartition = "idem-partition" // the original partition, decimal
	HeaderOffset    = "idem-offset"    // the original offset, decimal
)

// Defaults of WithBackoff.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// Option configures Consume.
type Option func(*config)

type config struct {
	logger     *slog.Logger
	deadLetter Writer
	dlTopic    string
	minBackoff time.Duration
	maxBackoff time.Duration
	timeout    time.Duration
	// sleep waits d or until ctx is done, and reports whether it waited
	// the whole d. Tests replace it.
	sleep func(ctx context.Context, d time.Duration) bool
}

func newConfig(opts []Option) config {
	c := config{
		logger:     slog.Default(),
		minBackoff: DefaultMinBackoff,
		maxBackoff: DefaultMaxBackoff,
		sleep:      sleep,
	}
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled messages and
// in-progress waits log at Debug, transient retries and dead-letters at Warn,
// recovered panics and failing dead-letter writes at Error. A nil logger
// discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithDeadLetter sets the writer that receives messages whose error is
// permanent (guard.Permanent). Without one, a permanent error stops Consume
// with an error, leaving the message uncommitted: nothing is ever skipped
// silently.
func WithDeadLetter(w Writer) Option { return func(c *config) { c.deadLetter = w } }

// WithDeadLetterTopic sets the Topic of dead-lettered messages, for a writer
// that has no Topic of its own. Leave it unset when the writer has one
// (kafka-go refuses a topic on both).
func WithDeadLetterTopic(topic string) Option { return func(c *config) { c.dlTopic = topic } }

// WithBackoff sets the delays between retries of a message in place: the
// first retry of a transient error waits min, each next one twice as long, up
// to max. max also bounds the wait of a key in progress elsewhere (its
// RetryAfter) and the retries of a failing dead-letter write. Defaults
// DefaultMinBackoff and DefaultMaxBackoff; values ≤ 0 keep them.
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) {
		if min > 0 {
			c.minBackoff = min
		}
		if max > 0 {
			c.maxBackoff = max
		}
	}
}

// WithTimeout bounds each call of the handler: its context is cancelled
// after d and its error is then transient. Default: no bound.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Consume fetches messages from r one at a time and runs h on each, until ctx
// is done. kafka-go commits are cumulative — committing an offset commits
// every earlier one of the partition — so a message cannot be negatively
// acknowledged and skipped: it is retried in place until it is settled, and
// only then committed (see the package doc for the mapping).
//
// A message is never committed before its handler answered Applied or
// Duplicate, or before it was written to the dead-letter writer. When ctx is
// done Consume returns nil without committing the message in flight, whose
// handler saw the cancellation (a message settled just then is still
// committed). A redelivery after a restart is answered Duplicate if the
// effect happened.
// Consume returns an error when fetching or committing fails (kafka-go
// retries commits itself; a reader without a GroupID cannot commit), and on a
// permanent error without a dead-letter writer.
func Consume(ctx context.Context, r Reader, h guard.Handler, opts ...Option) error {
	c := newConfig(opts)
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: fetch: %w", err)
		}
		settled, err := c.settle(ctx, m, h)
		if err != nil {
			return err
		}
		if !settled {
			return nil // ctx done: the message stays uncommitted
		}
		if err := commit(ctx, r, m); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: commit %s: %w", where(m), err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// commitTimeout bounds the commit of a message settled just as ctx ended.
const commitTimeout = 5 * time.Second

// commit commits m. A message settled while ctx ended is still committed,
// with a short detached context, to spare its redelivery.
func commit(ctx context.Context, r Reader, m kafka.Message) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
		defer cancel()
	}
	return r.CommitMessages(ctx, m)
}

// settle runs h on m until m may be committed: handled (Applied, Duplicate)
// or dead-lettered. It reports false when ctx is done first.
func (c *config) settle(ctx context.Context, m kafka.Message, h guard.Handler) (bool, error) {
	attrs := []any{slog.String("topic", m.Topic), slog.Int("partition", m.Partition), slog.Int64("offset", m.Offset)}
	backoff := c.minBackoff
	for attempt := 1; ; attempt++ {
		hctx, cancel := ctx, context.CancelFunc(func() {})
		if c.timeout > 0 {
			hctx, cancel = context.WithTimeout(ctx, c.timeout)
		}
		out, err := run(hctx, h, m.Value)
		cancel()
		a := append(attrs, slog.Int("attempt", attempt))

		var inProgress *guard.InProgressError
		switch {
		case err == nil:
			c.logger.Debug("kafkaguard: handled", append(a, slog.String("outcome", out.String()))...)
			return true, nil
		case ctx.Err() != nil:
			return false, nil
		case errors.As(err, &inProgress):
			delay := min(max(inProgress.RetryAfter, 0), c.maxBackoff)
			c.logger.Debug("kafkaguard: key in progress elsewhere, retrying in place", append(a, slog.Duration("delay", delay), slog.Any("error", err))...)
			if !c.sleep(ctx, delay) {
				return false, nil
			}
		case guard.Permanent(err):
			if c.deadLetter == nil {
				return false, fmt.Errorf("kafkaguard: permanent error at %s and no dead-letter writer (WithDeadLetter): %w", where(m), err)
			}
			c.logger.Warn("kafkaguard: permanent error, dead-lettering", append(a, slog.Any("error", err))...)
			return c.writeDeadLetter(ctx, m, err, attrs), nil
		default:
			if p := (*panicError)(nil); errors.As(err, &p) {
				c.logger.Error("kafkaguard: handler panicked, retrying in place", append(a, slog.Duration("delay", backoff), slog.Any("error", err), slog.String("stack", string(p.stack)))...)
			} else {
				c.logger.Warn("kafkaguard: transient error, retrying in place", append(a, slog.Duration("delay", backoff), slog.Any("error", err))...)
			}
			if !c.sleep(ctx, backoff) {
				return false, nil
			}
			backoff = min(2*backoff, c.maxBackoff)
		}
	}
}

// writeDeadLetter writes m, with the error in its headers, to the dead-letter
// writer, retrying with backoff until it succeeds or ctx is done.
func (c *config) writeDeadLetter(ctx context.Context, m kafka.Message, cause error, attrs []any) bool {
	dl := kafka.Message{
		Topic: c.dlTopic,
		Key:   m.Key,
		Value: m.Value,
		Headers: append(append([]kafka.Header(nil), m.Headers...),
			kafka.Header{Key: HeaderError, Value: []byte(cause.Error())},
			kafka.Header{Key: HeaderTopic, Value: []byte(m.Topic)},
			kafka.Header{Key: HeaderPartition, Value: []byte(strconv.Itoa(m.Partition))},
			kafka.Header{Key: HeaderOffset, Value: []byte(strconv.FormatInt(m.Offset, 10))},
		),
	}
	backoff := c.minBackoff
	for {
		err := c.deadLetter.WriteMessages(ctx, dl)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		c.logger.Error("kafkaguard: dead-letter write failed, retrying", append(attrs, slog.Duration("delay", backoff), slog.Any("error", err))...)
		if !c.sleep(ctx, backoff) {
			return false
		}
		backoff = min(2*backoff, c.maxBackoff)
	}
}

func where(m kafka.Message) string {
	return fmt.Sprintf("%s/%d@%d", m.Topic, m.Partition, m.Offset)
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// panicError is a panic of the handler, recovered and treated as transient.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("kafkaguard: handler panicked: %v", p.value) }

// run calls h, turning a panic into a transient error.
func run(ctx context.Context, h guard.Handler, body []byte) (out guard.Outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = 0, &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return h.Handle(ctx, body)
}
