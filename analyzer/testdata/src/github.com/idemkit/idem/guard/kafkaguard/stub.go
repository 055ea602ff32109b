// Package kafkaguard is a stub of github.com/idemkit/idem for analyzer tests: signatures mirror the real API (go doc -all); bodies return zero values.
package kafkaguard

import (
	"context"
	"log/slog"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/segmentio/kafka-go"
)

type Reader interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
}

type Writer interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

type Option func(*config)

type config struct{}

func WithBackoff(min, max time.Duration) Option { return nil }
func WithDeadLetter(w Writer) Option            { return nil }
func WithDeadLetterTopic(topic string) Option   { return nil }
func WithLogger(l *slog.Logger) Option          { return nil }
func WithTimeout(d time.Duration) Option        { return nil }

func Consume(ctx context.Context, r Reader, h guard.Handler, opts ...Option) error { return nil }
