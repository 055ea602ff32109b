// Package amqpguard is a stub of github.com/idemkit/idem for analyzer tests: signatures mirror the real API (go doc -all); bodies return zero values.
package amqpguard

import (
	"context"
	"log/slog"
	"time"

	"github.com/idemkit/idem/guard"
	amqp "github.com/rabbitmq/amqp091-go"
)

const (
	DefaultRetryDelay      = time.Second
	DefaultMaxRequeueDelay = 30 * time.Second
)

type Action int

const (
	Ack Action = iota + 1
	Requeue
	Reject
)

func (a Action) String() string { return "" }

type Option func(*config)

type config struct{}

func WithConcurrency(n int) Option               { return nil }
func WithConsumerArgs(args amqp.Table) Option    { return nil }
func WithConsumerTag(tag string) Option          { return nil }
func WithExclusive() Option                      { return nil }
func WithLogger(l *slog.Logger) Option           { return nil }
func WithMaxRequeueDelay(d time.Duration) Option { return nil }
func WithRetryDelay(d time.Duration) Option      { return nil }
func WithTimeout(d time.Duration) Option         { return nil }

func Consume(ctx context.Context, ch *amqp.Channel, queue string, h guard.Handler, opts ...Option) error {
	return nil
}

func Handle(ctx context.Context, d amqp.Delivery, h guard.Handler, opts ...Option) Action {
	return 0
}
