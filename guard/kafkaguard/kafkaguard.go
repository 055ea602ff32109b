package kafkaguard

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
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
	HeaderError     = adapt.HeaderError     // "idem-error": the handler's error text
	HeaderTopic     = adapt.HeaderTopic     // "idem-topic": the original topic
	HeaderPartition = adapt.HeaderPartition // "idem-partition": the original partition, decimal
	HeaderOffset    = adapt.HeaderOffset    // "idem-offset": the original offset, decimal
)

// Defaults of WithBackoff.
const (
	DefaultMinBackoff = adapt.DefaultMinBackoff
	DefaultMaxBackoff = adapt.DefaultMaxBackoff
)

// Option configures Consume.
type Option func(*config)

type config struct {
	adapt.InPlace
	deadLetter Writer
	dlTopic    string
}

func newConfig(opts []Option) config {
	c := config{InPlace: adapt.NewInPlace("kafkaguard")}
	adapt.Configure(&c, opts)
	c.Resolve()
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled messages and
// in-progress waits log at Debug, transient retries and dead-letters at Warn,
// recovered panics and failing dead-letter writes at Error. A nil logger
// discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.Logger = l } }

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
	return func(c *config) { c.SetBackoff(min, max) }
}

// WithTimeout bounds each call of the handler: its context is cancelled
// after d and its error is then transient. Default: no bound.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.Timeout = d } }

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
		am := adapt.Message{Topic: m.Topic, Partition: int32(m.Partition), Offset: m.Offset, Body: m.Value}
		var deadLetter adapt.DeadLetterFunc
		if c.deadLetter != nil {
			deadLetter = func(ctx context.Context, cause error) error { return c.writeDeadLetter(ctx, m, am, cause) }
		}
		settled, err := c.Settle(ctx, h, am, deadLetter)
		if err != nil {
			return err
		}
		if !settled {
			return nil // ctx done: the message stays uncommitted
		}
		cctx, cancel := adapt.CommitContext(ctx)
		err = r.CommitMessages(cctx, m)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: commit %s: %w", am.Where(), err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// writeDeadLetter writes m, with the error in its headers, to the
// dead-letter writer.
func (c *config) writeDeadLetter(ctx context.Context, m kafka.Message, am adapt.Message, cause error) error {
	headers := append([]kafka.Header(nil), m.Headers...)
	for _, h := range am.DeadLetterHeaders(cause) {
		headers = append(headers, kafka.Header{Key: h.Key, Value: h.Value})
	}
	return c.deadLetter.WriteMessages(ctx, kafka.Message{Topic: c.dlTopic, Key: m.Key, Value: m.Value, Headers: headers})
}
