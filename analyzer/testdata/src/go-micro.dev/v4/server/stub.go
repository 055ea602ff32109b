// Package server is a stub of go-micro.dev/v4@v4.11.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package server

import "context"

type Server interface {
	NewSubscriber(string, interface{}, ...SubscriberOption) Subscriber
	Subscribe(Subscriber) error
	Start() error
	Stop() error
	String() string
}

type Subscriber interface {
	Topic() string
	Subscriber() interface{}
	Options() SubscriberOptions
}

type SubscriberOption func(*SubscriberOptions)

type SubscriberOptions struct {
	Context  context.Context
	Queue    string
	AutoAck  bool
	Internal bool
}
