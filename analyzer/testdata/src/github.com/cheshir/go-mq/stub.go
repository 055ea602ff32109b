// Package mq is a stub of github.com/cheshir/go-mq@v1.2.0 for analyzer tests: signatures mirror the real API.
package mq

// MQ is the queue: connection, consumers and producers.
type MQ interface {
	Consumer(name string) (Consumer, error)
	SetConsumerHandler(name string, handler ConsumerHandler) error
	SyncProducer(name string) (SyncProducer, error)
	Close()
}

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
