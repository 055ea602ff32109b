// Package mq is a company's broker API, shaped like ecodeclub/mq-api:
// interfaces a service programs against, implemented over a broker client
// in a subpackage.
package mq

import "context"

// Message is the API's own message, converted from the broker's.
type Message struct {
	Value     []byte
	Key       []byte
	Topic     string
	Partition int64
	Offset    int64
}

// Consumer is a topic's consumer in a group.
type Consumer interface {
	Consume(ctx context.Context) (*Message, error)
	ConsumeChan(ctx context.Context) (<-chan *Message, error)
	Close() error
}

// MQ makes consumers.
type MQ interface {
	Consumer(topic, groupID string) (Consumer, error)
}
