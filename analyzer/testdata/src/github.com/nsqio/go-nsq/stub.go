// Package nsq is a stub of github.com/nsqio/go-nsq@v1.1.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package nsq

import "time"

const MsgIDLength = 16

type MessageID [MsgIDLength]byte

type Message struct {
	ID          MessageID
	Body        []byte
	Timestamp   int64
	Attempts    uint16
	NSQDAddress string
}

func NewMessage(id MessageID, body []byte) *Message { return nil }

func (m *Message) DisableAutoResponse() {}

func (m *Message) IsAutoResponseDisabled() bool { return false }

func (m *Message) HasResponded() bool { return false }

func (m *Message) Finish() {}

func (m *Message) Touch() {}

func (m *Message) Requeue(delay time.Duration) {}

func (m *Message) RequeueWithoutBackoff(delay time.Duration) {}

type Handler interface {
	HandleMessage(message *Message) error
}

type HandlerFunc func(message *Message) error

func (h HandlerFunc) HandleMessage(m *Message) error { return nil }

type Config struct {
	MaxAttempts uint16 `opt:"max_attempts" min:"0" max:"65535" default:"5"`
	MaxInFlight int    `opt:"max_in_flight" min:"0" default:"1"`
}

func NewConfig() *Config { return nil }

type Consumer struct {
}

func NewConsumer(topic string, channel string, config *Config) (*Consumer, error) { return nil, nil }

func (r *Consumer) AddHandler(handler Handler) {}

func (r *Consumer) AddConcurrentHandlers(handler Handler, concurrency int) {}

func (r *Consumer) ConnectToNSQLookupd(addr string) error { return nil }

func (r *Consumer) Stop() {}

type Producer struct {
}

func NewProducer(addr string, config *Config) (*Producer, error) { return nil, nil }

func (w *Producer) Publish(topic string, body []byte) error { return nil }

func (w *Producer) MultiPublish(topic string, body [][]byte) error { return nil }

func (w *Producer) DeferredPublish(topic string, delay time.Duration, body []byte) error { return nil }
