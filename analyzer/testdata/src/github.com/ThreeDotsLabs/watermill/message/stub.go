// Package message is a stub of github.com/ThreeDotsLabs/watermill@v1.5.1 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package message

import (
	"context"
	"github.com/ThreeDotsLabs/watermill"
	"time"
)

type Message struct {
	UUID     string
	Metadata Metadata
	Payload  Payload
}

func (m *Message) Ack() bool { return false }

func (m *Message) Nack() bool { return false }

func (m *Message) Acked() <-chan struct{} { return nil }

func (m *Message) Nacked() <-chan struct{} { return nil }

func (m *Message) Context() context.Context { return nil }

func (m *Message) SetContext(ctx context.Context) {}

func (m *Message) Copy() *Message { return nil }

func NewMessage(uuid string, payload Payload) *Message { return nil }

func NewMessageWithContext(ctx context.Context, uuid string, payload Payload) *Message { return nil }

type Metadata map[string]string

func (m Metadata) Get(key string) string { return "" }

func (m Metadata) Set(key string, value string) {}

type Payload []byte

type Messages []*Message

type HandlerFunc func(msg *Message) ([]*Message, error)

type NoPublishHandlerFunc func(msg *Message) error

type HandlerMiddleware func(h HandlerFunc) HandlerFunc

type Handler struct {
}

type Router struct {
}

func (r *Router) AddHandler(handlerName string, subscribeTopic string, subscriber Subscriber, publishTopic string, publisher Publisher, handlerFunc HandlerFunc) *Handler {
	return nil
}

func (r *Router) AddNoPublisherHandler(handlerName string, subscribeTopic string, subscriber Subscriber, handlerFunc NoPublishHandlerFunc) *Handler {
	return nil
}

func (r *Router) AddConsumerHandler(handlerName string, subscribeTopic string, subscriber Subscriber, handlerFunc NoPublishHandlerFunc) *Handler {
	return nil
}

func (r *Router) AddMiddleware(m ...HandlerMiddleware) {}

func (r *Router) Run(ctx context.Context) (err error) { return nil }

func (r *Router) Close() error { return nil }

type RouterConfig struct {
	CloseTimeout time.Duration
}

func NewRouter(config RouterConfig, logger watermill.LoggerAdapter) (*Router, error) { return nil, nil }

func NewDefaultRouter(logger watermill.LoggerAdapter) *Router { return nil }

type Publisher interface {
	Close() error
	Publish(topic string, messages ...*Message) error
}

type Subscriber interface {
	Close() error
	Subscribe(ctx context.Context, topic string) (<-chan *Message, error)
}
