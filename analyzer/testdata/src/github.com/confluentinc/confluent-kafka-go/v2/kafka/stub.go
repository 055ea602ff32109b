// Package kafka is a stub of github.com/confluentinc/confluent-kafka-go/v2@v2.11.1 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package kafka

import (
	"time"
)

type Consumer struct {
}

func (c *Consumer) ReadMessage(timeout time.Duration) (*Message, error) { return nil, nil }

func (c *Consumer) Poll(timeoutMs int) (event Event) { return nil }

func (c *Consumer) CommitMessage(m *Message) ([]TopicPartition, error) { return nil, nil }

func (c *Consumer) Commit() ([]TopicPartition, error) { return nil, nil }

func (c *Consumer) CommitOffsets(offsets []TopicPartition) ([]TopicPartition, error) { return nil, nil }

func (c *Consumer) StoreMessage(m *Message) (storedOffsets []TopicPartition, err error) {
	return nil, nil
}

func (c *Consumer) StoreOffsets(offsets []TopicPartition) (storedOffsets []TopicPartition, err error) {
	return nil, nil
}

func (c *Consumer) Subscribe(topic string, rebalanceCb RebalanceCb) error { return nil }

func (c *Consumer) SubscribeTopics(topics []string, rebalanceCb RebalanceCb) (err error) { return nil }

func (c *Consumer) Close() (err error) { return nil }

func (c *Consumer) String() string { return "" }

func NewConsumer(conf *ConfigMap) (*Consumer, error) { return nil, nil }

type Message struct {
	TopicPartition TopicPartition
	Value          []byte
	Key            []byte
	Timestamp      time.Time
	TimestampType  TimestampType
	Opaque         interface{}
	Headers        []Header
	LeaderEpoch    *int32
}

func (m *Message) String() string { return "" }

type TopicPartition struct {
	Topic       *string
	Partition   int32
	Offset      Offset
	Metadata    *string
	Error       error
	LeaderEpoch *int32
}

func (p TopicPartition) String() string { return "" }

type Header struct {
	Key   string
	Value []byte
}

func (h Header) String() string { return "" }

type Offset int64

func (o Offset) String() string { return "" }

type ConfigMap map[string]ConfigValue

func (m ConfigMap) SetKey(key string, value ConfigValue) error { return nil }

type ConfigValue interface {
}

type Event interface {
	String() string
}

type RebalanceCb func(*Consumer, Event) error

type Producer struct {
}

func (p *Producer) Produce(msg *Message, deliveryChan chan Event) error { return nil }

func (p *Producer) Flush(timeoutMs int) int { return 0 }

func (p *Producer) Close() {}

func (p *Producer) Events() chan Event { return nil }

func (p *Producer) String() string { return "" }

func NewProducer(conf *ConfigMap) (*Producer, error) { return nil, nil }

type Error struct {
}

func (e Error) Error() string { return "" }

func (e Error) String() string { return "" }

func (e Error) Code() ErrorCode { return 0 }

func (e Error) IsTimeout() bool { return false }

func (e Error) IsFatal() bool { return false }

func (e Error) IsRetriable() bool { return false }

type TimestampType int

func (t TimestampType) String() string { return "" }

type ErrorCode int

func (c ErrorCode) String() string { return "" }

const PartitionAny int32 = -1

const OffsetBeginning Offset = -2

const OffsetEnd Offset = -1

const OffsetStored Offset = -1000
