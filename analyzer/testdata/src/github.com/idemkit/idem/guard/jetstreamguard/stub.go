// Package jetstreamguard is a stub of github.com/idemkit/idem for analyzer tests: signatures mirror the real API (go doc -all); bodies return zero values.
package jetstreamguard

import (
	"context"
	"log/slog"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/nats-io/nats.go/jetstream"
)

const DefaultAckWait = 30 * time.Second

const MaxReasonLen = 256

type Action int

const (
	Ack Action = iota + 1
	NakInProgress
	Term
	Nak
)

func (a Action) String() string { return "" }

type Option func(*config)

type config struct{}

func WithAckWait(d time.Duration) Option                           { return nil }
func WithConsumeOptions(opts ...jetstream.PullConsumeOpt) Option   { return nil }
func WithDoubleAck() Option                                        { return nil }
func WithLogger(l *slog.Logger) Option                             { return nil }
func WithNakBackoff(f func(delivered uint64) time.Duration) Option { return nil }
func WithNakDelay(d time.Duration) Option                          { return nil }
func WithTimeout(d time.Duration) Option                           { return nil }

func Consume(ctx context.Context, c jetstream.Consumer, h guard.Handler, opts ...Option) error {
	return nil
}

func Handler(h guard.Handler, opts ...Option) jetstream.MessageHandler { return nil }

func Handle(ctx context.Context, msg jetstream.Msg, h guard.Handler, opts ...Option) Action {
	return 0
}
