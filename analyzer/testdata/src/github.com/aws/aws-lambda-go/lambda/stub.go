// Package lambda is a stub of github.com/aws/aws-lambda-go@v1.55.1 for analyzer tests: signatures mirror the real API.
package lambda

import "context"

type Handler interface {
	Invoke(ctx context.Context, payload []byte) ([]byte, error)
}

type handlerOptions struct{}

type Option func(*handlerOptions)

func Start(handler interface{}) {}

func StartWithOptions(handler interface{}, options ...Option) {}

func WithContext(ctx context.Context) Option { return nil }
