// Package broker is a stub of go-micro.dev/v5@v5.3.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package broker

import "context"

type Broker interface {
	Connect() error
	Disconnect() error
	Publish(topic string, m *Message, opts ...PublishOption) error
	Subscribe(topic string, h Handler, opts ...SubscribeOption) (Subscriber, error)
	String() string
}

type Handler func(Event) error

type Message struct {
	Header map[string]string
	Body   []byte
}

type Event interface {
	Topic() string
	Message() *Message
	Ack() error
	Error() error
}

type Subscriber interface {
	Options() SubscribeOptions
	Topic() string
	Unsubscribe() error
}

type PublishOptions struct {
	Context context.Context
}

type SubscribeOptions struct {
	Context context.Context
	Queue   string
	AutoAck bool
}

type PublishOption func(*PublishOptions)

type SubscribeOption func(*SubscribeOptions)

func DisableAutoAck() SubscribeOption { return nil }

func Queue(name string) SubscribeOption { return nil }

func Publish(topic string, msg *Message, opts ...PublishOption) error { return nil }

func Subscribe(topic string, handler Handler, opts ...SubscribeOption) (Subscriber, error) {
	return nil, nil
}
