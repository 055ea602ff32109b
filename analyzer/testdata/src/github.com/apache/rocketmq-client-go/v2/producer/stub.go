// Package producer is a stub of github.com/apache/rocketmq-client-go/v2@v2.1.3-0.20251226070945-2173d070fd1b for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package producer

import (
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

type Option func(*producerOptions)

type producerOptions struct {
}

func WithGroupName(group string) Option { return nil }

func WithNameServer(nameServers primitive.NamesrvAddr) Option { return nil }

func WithRetry(retries int) Option { return nil }
