package watermillguard

import (
	"context"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// DefaultMaxRetryDelay bounds the wait before a message whose key is in
// progress elsewhere is returned to the router (WithMaxRetryDelay).
const DefaultMaxRetryDelay = 30 * time.Second

// Option configures the middleware and Handler.
type Option func(*config)

type config struct {
	logger        *slog.Logger
	maxRetryDelay time.Duration
	retryDelay    time.Duration
	timeout       time.Duration
}

func newConfig(opts []Option) config {
	c := config{logger: slog.Default(), maxRetryDelay: DefaultMaxRetryDelay}
	adapt.Configure(&c, opts)
	c.logger = adapt.Logger(c.logger)
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled messages log
// at Debug, in-progress waits at Debug, transient and permanent errors at
// Warn. A nil logger discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithMaxRetryDelay bounds the wait, RetryAfter, before a message whose key
// is in progress elsewhere is nacked (default DefaultMaxRetryDelay).
func WithMaxRetryDelay(d time.Duration) Option {
	return func(c *config) { c.maxRetryDelay = max(d, 0) }
}

// WithRetryDelay waits d before a transient error is returned to the router
// (and the message nacked), so that Pub/Subs which redeliver at once do not
// spin. Default 0; watermill's middleware.Retry is the richer choice.
func WithRetryDelay(d time.Duration) Option {
	return func(c *config) { c.retryDelay = max(d, 0) }
}

// WithTimeout bounds each call of the handler: its context, derived from the
// message's, is cancelled after d. Default: no bound.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Middleware returns a router middleware for handlers whose error comes from
// a guarded handler (a handler that decodes the message and returns what a
// generated Handle returned). It maps the error by the table of the package
// doc: nil passes (the router acks and publishes the produced messages),
// *guard.InProgressError is returned after waiting RetryAfter, transient
// errors are returned (after WithRetryDelay), and permanent ones are returned
// as they are, for middleware.PoisonQueueWithFilter(pub, topic,
// guard.Permanent) to take. A recovered panic is left to watermill's
// Recoverer or the router.
func Middleware(opts ...Option) message.HandlerMiddleware {
	c := newConfig(opts)
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			produced, err := c.call(msg, next)
			if err != nil {
				return nil, err
			}
			return produced, nil
		}
	}
}

// Handler returns a watermill handler that runs h on each message's payload
// with the message's context and maps its answer by the table of the package
// doc. Register it with Router.AddConsumerHandler; it is Middleware around a
// handler that calls h.
func Handler(h guard.Handler, opts ...Option) message.NoPublishHandlerFunc {
	c := newConfig(opts)
	next := func(msg *message.Message) ([]*message.Message, error) {
		out, err := h.Handle(msg.Context(), msg.Payload)
		if err == nil {
			c.logger.DebugContext(msg.Context(), "watermillguard: handled", slog.String("message_uuid", msg.UUID), slog.String("outcome", out.String()))
		}
		return nil, err
	}
	return func(msg *message.Message) error {
		_, err := c.call(msg, next)
		return err
	}
}

// PoisonQueue returns watermill's poison-queue middleware filtered on
// guard.Permanent: a message whose error is permanent is published on topic
// (with watermill's reason_poisoned metadata) and acked; any other error
// passes on to the router, which nacks it. Add it before (outside)
// Middleware, or around a Handler.
func PoisonQueue(pub message.Publisher, topic string) (message.HandlerMiddleware, error) {
	return middleware.PoisonQueueWithFilter(pub, topic, guard.Permanent)
}

// call runs next on msg under the per-message timeout and maps its error.
func (c *config) call(msg *message.Message, next message.HandlerFunc) ([]*message.Message, error) {
	parent := msg.Context()
	if c.timeout > 0 {
		ctx, cancel := context.WithTimeout(parent, c.timeout)
		defer cancel()
		msg.SetContext(ctx)
		defer msg.SetContext(parent)
	}
	produced, err := next(msg)
	if err == nil {
		return produced, nil
	}
	attrs := []any{slog.String("message_uuid", msg.UUID), slog.Any("error", err)}
	switch v := adapt.Classify(err); v.Class {
	case adapt.InProgress:
		d := min(v.RetryAfter, c.maxRetryDelay)
		c.logger.DebugContext(parent, "watermillguard: key in progress elsewhere, nack after a delay", append(attrs, slog.Duration("delay", d))...)
		adapt.Sleep(parent, d)
	case adapt.DeadLetter:
		c.logger.WarnContext(parent, "watermillguard: permanent error (for the poison queue)", attrs...)
	default:
		c.logger.WarnContext(parent, "watermillguard: transient error, nack", append(attrs, slog.Duration("delay", c.retryDelay))...)
		adapt.Sleep(parent, c.retryDelay)
	}
	return nil, err
}
