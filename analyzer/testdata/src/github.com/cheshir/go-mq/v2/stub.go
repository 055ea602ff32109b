// Package mq is a stub of github.com/cheshir/go-mq/v2@v2.0.1 for analyzer tests: signatures mirror the real API.
package mq

// Config configures the queue.
type Config struct {
	DSN string
}

// MessageQueue holds the connection, consumers and producers.
type MessageQueue struct{}

// New connects.
func New(config Config) (*MessageQueue, error) { return &MessageQueue{}, nil }

// Consumer describes a consumer.
type Consumer interface {
	Consume(handler ConsumerHandler)
}

// ConsumerHandler is called for each message.
type ConsumerHandler func(message Message)

// Message is a delivery.
type Message interface {
	Ack(multiple bool) error
	Nack(multiple, requeue bool) error
	Reject(requeue bool) error
	Body() []byte
}

// SyncProducer sends and waits.
type SyncProducer interface {
	Produce(data []byte) error
}

// AsyncProducer sends and returns.
type AsyncProducer interface {
	Produce(data []byte)
}

// SetConsumerHandler registers handler for the named consumer.
func (mq *MessageQueue) SetConsumerHandler(name string, handler ConsumerHandler) error { return nil }

// Consumer returns the named consumer.
func (mq *MessageQueue) Consumer(name string) (Consumer, error) { return nil, nil }

// SyncProducer returns the named producer.
func (mq *MessageQueue) SyncProducer(name string) (SyncProducer, error) { return nil, nil }
