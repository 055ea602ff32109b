// Package pulsar is a stub of github.com/apache/pulsar-client-go@v0.19.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package pulsar

import (
	"context"
	"time"
)

type Client interface {
	Subscribe(ConsumerOptions) (Consumer, error)
	Close()
}

type ConsumerOptions struct {
	Topic            string
	SubscriptionName string
}

type ConsumerMessage struct {
	Consumer
	Message
}

type Consumer interface {
	Subscription() string
	Receive(context.Context) (Message, error)
	Chan() <-chan ConsumerMessage
	Ack(Message) error
	AckID(MessageID) error
	AckIDList([]MessageID) error
	AckCumulative(msg Message) error
	AckIDCumulative(msgID MessageID) error
	ReconsumeLater(msg Message, delay time.Duration)
	Nack(Message)
	NackID(MessageID)
	Close()
}

type Message interface {
	Topic() string
	Properties() map[string]string
	Payload() []byte
	ID() MessageID
	PublishTime() time.Time
	Key() string
	RedeliveryCount() uint32
}

type MessageID interface {
	Serialize() []byte
	LedgerID() int64
	EntryID() int64
	String() string
}

type Producer interface {
	Topic() string
	Send(context.Context, *ProducerMessage) (MessageID, error)
	SendAsync(context.Context, *ProducerMessage, func(MessageID, *ProducerMessage, error))
	Close()
}

type ProducerMessage struct {
	Payload    []byte
	Key        string
	Properties map[string]string
}
