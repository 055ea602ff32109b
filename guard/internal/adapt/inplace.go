package adapt

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/idemkit/idem/guard"
)

// Defaults of InPlace's backoff.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// Headers added to a dead-lettered Kafka message, after the original's
// headers.
const (
	HeaderError     = "idem-error"     // the handler's error text
	HeaderTopic     = "idem-topic"     // the original topic
	HeaderPartition = "idem-partition" // the original partition, decimal
	HeaderOffset    = "idem-offset"    // the original offset, decimal
)

// CommitTimeout bounds the commit of a message settled just as its context
// ended (CommitContext).
const CommitTimeout = 5 * time.Second

// Header is a Kafka record header, for the clients to convert.
type Header struct {
	Key   string
	Value []byte
}

// Message is a Kafka message as InPlace sees it.
type Message struct {
	Topic     string
	Partition int32
	Offset    int64
	Body      []byte
}

// Where names m as topic/partition@offset.
func (m Message) Where() string { return fmt.Sprintf("%s/%d@%d", m.Topic, m.Partition, m.Offset) }

// DeadLetterHeaders returns the headers that a dead-lettered m gets after
// its own: the cause's text and m's topic, partition and offset.
func (m Message) DeadLetterHeaders(cause error) []Header {
	return []Header{
		{Key: HeaderError, Value: []byte(cause.Error())},
		{Key: HeaderTopic, Value: []byte(m.Topic)},
		{Key: HeaderPartition, Value: []byte(strconv.Itoa(int(m.Partition)))},
		{Key: HeaderOffset, Value: []byte(strconv.FormatInt(m.Offset, 10))},
	}
}

func (m Message) attrs() []any {
	return []any{slog.String("topic", m.Topic), slog.Int("partition", int(m.Partition)), slog.Int64("offset", m.Offset)}
}

// CommitContext returns a context detached from ctx's cancellation and
// bounded by CommitTimeout: a message settled just as ctx ends — before
// the commit starts or while it runs — is still committed, to spare its
// redelivery.
func CommitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
}

// InPlace settles the messages of a broker whose commits are cumulative
// (Kafka: committing an offset commits every earlier one of the partition).
// Such a message cannot be negatively acknowledged and skipped, so Settle
// retries it in place until it is handled or dead-lettered.
type InPlace struct {
	Adapter    string // the adapter's package name, prefix of logs and errors
	Logger     *slog.Logger
	MinBackoff time.Duration // first wait after a transient error
	MaxBackoff time.Duration // longest wait: transient errors, RetryAfter, dead-letter writes
	Timeout    time.Duration // bound of each handler call; 0: none
	// Sleep waits between tries and reports whether it waited the whole
	// time (Sleep, the function, unless replaced).
	Sleep func(ctx context.Context, d time.Duration) bool
}

// NewInPlace returns the defaults for adapter: slog.Default(),
// DefaultMinBackoff, DefaultMaxBackoff, no timeout, Sleep.
func NewInPlace(adapter string) InPlace {
	return InPlace{Adapter: adapter, Logger: slog.Default(), MinBackoff: DefaultMinBackoff, MaxBackoff: DefaultMaxBackoff, Sleep: Sleep}
}

// SetBackoff sets the backoff bounds; values ≤ 0 keep the current ones.
func (p *InPlace) SetBackoff(min, max time.Duration) {
	if min > 0 {
		p.MinBackoff = min
	}
	if max > 0 {
		p.MaxBackoff = max
	}
}

// Resolve finishes the configuration after the options ran: a nil logger
// discards.
func (p *InPlace) Resolve() { p.Logger = Logger(p.Logger) }

// DeadLetterFunc writes the message being settled, with the cause in its
// headers (Message.DeadLetterHeaders), to a dead-letter topic; it returns
// once the broker has stored it.
type DeadLetterFunc func(ctx context.Context, cause error) error

// Settle runs h on m until m may be committed: handled (Applied, Duplicate)
// or written by deadLetter. It reports false when ctx is done first; then
// nothing may be committed for m. A permanent error without deadLetter (nil)
// is returned as an error, m unsettled. The mapping:
//
//	(Applied or Duplicate, nil)  settled
//	*guard.InProgressError       wait RetryAfter (at most MaxBackoff), run h again
//	guard.Permanent              deadLetter, retried with backoff until it succeeds
//	any other error, a panic     wait (MinBackoff doubling to MaxBackoff), run h again
func (p *InPlace) Settle(ctx context.Context, h guard.Handler, m Message, deadLetter DeadLetterFunc) (bool, error) {
	return p.settle(ctx, h, m, deadLetter, nil)
}

// settle is Settle, whose first attempt is first when it is not nil (the
// message's answer in a batch) instead of a call of h.
func (p *InPlace) settle(ctx context.Context, h guard.Handler, m Message, deadLetter DeadLetterFunc, first *guard.Result) (bool, error) {
	attrs := m.attrs()
	backoff := Backoff{Min: p.MinBackoff, Max: p.MaxBackoff}
	for attempt := 1; ; attempt++ {
		var (
			out guard.Outcome
			err error
		)
		if attempt == 1 && first != nil {
			out, err = first.Outcome, first.Err
		} else {
			out, err = Call(ctx, p.Adapter, p.Timeout, h, m.Body)
		}
		a := append(attrs[:len(attrs):len(attrs)], slog.Int("attempt", attempt))
		if err != nil && ctx.Err() != nil {
			return false, nil
		}
		switch v := Classify(err); v.Class {
		case Settle:
			p.Logger.Debug(p.Adapter+": handled", append(a, slog.String("outcome", out.String()))...)
			return true, nil
		case InProgress:
			delay := min(v.RetryAfter, p.MaxBackoff)
			p.Logger.Debug(p.Adapter+": key in progress elsewhere, retrying in place", append(a, slog.Duration("delay", delay), slog.Any("error", err))...)
			if !p.Sleep(ctx, delay) {
				return false, nil
			}
		case DeadLetter:
			if deadLetter == nil {
				return false, fmt.Errorf("%s: permanent error at %s and no dead-letter writer (WithDeadLetter): %w", p.Adapter, m.Where(), err)
			}
			p.Logger.Warn(p.Adapter+": permanent error, dead-lettering", append(a, slog.Any("error", err))...)
			return p.deadLetter(ctx, err, deadLetter, attrs), nil
		default:
			delay := backoff.Next()
			if v.Panic != nil {
				p.Logger.Error(p.Adapter+": handler panicked, retrying in place", append(a, slog.Duration("delay", delay), slog.Any("error", err), slog.String("stack", string(v.Panic.Stack)))...)
			} else {
				p.Logger.Warn(p.Adapter+": transient error, retrying in place", append(a, slog.Duration("delay", delay), slog.Any("error", err))...)
			}
			if !p.Sleep(ctx, delay) {
				return false, nil
			}
		}
	}
}

// deadLetter writes the message with its cause, retrying with backoff until the write
// succeeds or ctx is done.
func (p *InPlace) deadLetter(ctx context.Context, cause error, write DeadLetterFunc, attrs []any) bool {
	backoff := Backoff{Min: p.MinBackoff, Max: p.MaxBackoff}
	for {
		err := write(ctx, cause)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		delay := backoff.Next()
		p.Logger.Error(p.Adapter+": dead-letter write failed, retrying", append(attrs[:len(attrs):len(attrs)], slog.Duration("delay", delay), slog.Any("error", err))...)
		if !p.Sleep(ctx, delay) {
			return false
		}
	}
}
