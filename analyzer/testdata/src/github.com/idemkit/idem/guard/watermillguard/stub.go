// Package watermillguard is a stub of github.com/idemkit/idem for analyzer tests: signatures mirror the real API (go doc -all); bodies return zero values.
package watermillguard

import (
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/idemkit/idem/guard"
)

const DefaultMaxRetryDelay = 30 * time.Second

type Option func(*config)

type config struct{}

func WithLogger(l *slog.Logger) Option         { return nil }
func WithMaxRetryDelay(d time.Duration) Option { return nil }
func WithRetryDelay(d time.Duration) Option    { return nil }
func WithTimeout(d time.Duration) Option       { return nil }

func Handler(h guard.Handler, opts ...Option) message.NoPublishHandlerFunc { return nil }

func Middleware(opts ...Option) message.HandlerMiddleware { return nil }

func PoisonQueue(pub message.Publisher, topic string) (message.HandlerMiddleware, error) {
	return nil, nil
}
