// Package sarama is a stub of github.com/IBM/sarama@v1.61.1 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package sarama

import (
	"context"
	"time"
)

type ConsumerGroupHandler interface {
	Cleanup(ConsumerGroupSession) error
	ConsumeClaim(ConsumerGroupSession, ConsumerGroupClaim) error
	Setup(ConsumerGroupSession) error
}

type ConsumerGroupSession interface {
	Claims() map[string][]int32
	Commit()
	Context() context.Context
	GenerationID() int32
	MarkMessage(msg *ConsumerMessage, metadata string)
	MarkOffset(topic string, partition int32, offset int64, metadata string)
	MemberID() string
	ResetOffset(topic string, partition int32, offset int64, metadata string)
}

type ConsumerGroupClaim interface {
	HighWaterMarkOffset() int64
	InitialOffset() int64
	Messages() <-chan *ConsumerMessage
	Partition() int32
	Topic() string
}

type ConsumerGroup interface {
	Close() error
	Consume(ctx context.Context, topics []string, handler ConsumerGroupHandler) error
	Errors() <-chan error
	Pause(partitions map[string][]int32)
	PauseAll()
	Resume(partitions map[string][]int32)
	ResumeAll()
}

type ConsumerMessage struct {
	Headers        []*RecordHeader
	Timestamp      time.Time
	BlockTimestamp time.Time
	Key            []byte
	Value          []byte
	Topic          string
	Partition      int32
	Offset         int64
}

type RecordHeader struct {
	Key   []byte
	Value []byte
}

type SyncProducer interface {
	AbortTxn() error
	AddMessageToTxn(msg *ConsumerMessage, groupId string, metadata *string) error
	AddMessageToTxnWithGroupMetadata(msg *ConsumerMessage, groupMetadata *ConsumerGroupMetadata, metadata *string) error
	AddOffsetsToTxn(offsets map[string][]*PartitionOffsetMetadata, groupId string) error
	AddOffsetsToTxnWithGroupMetadata(offsets map[string][]*PartitionOffsetMetadata, groupMetadata *ConsumerGroupMetadata) error
	BeginTxn() error
	Close() error
	CommitTxn() error
	IsTransactional() bool
	SendMessage(msg *ProducerMessage) (partition int32, offset int64, err error)
	SendMessages(msgs []*ProducerMessage) error
	TxnStatus() ProducerTxnStatusFlag
}

type AsyncProducer interface {
	AbortTxn() error
	AddMessageToTxn(msg *ConsumerMessage, groupId string, metadata *string) error
	AddMessageToTxnWithGroupMetadata(msg *ConsumerMessage, groupMetadata *ConsumerGroupMetadata, metadata *string) error
	AddOffsetsToTxn(offsets map[string][]*PartitionOffsetMetadata, groupId string) error
	AddOffsetsToTxnWithGroupMetadata(offsets map[string][]*PartitionOffsetMetadata, groupMetadata *ConsumerGroupMetadata) error
	AsyncClose()
	BeginTxn() error
	Close() error
	CommitTxn() error
	Errors() <-chan *ProducerError
	Input() chan<- *ProducerMessage
	IsTransactional() bool
	Successes() <-chan *ProducerMessage
	TxnStatus() ProducerTxnStatusFlag
}

type ProducerMessage struct {
	Topic     string
	Key       Encoder
	Value     Encoder
	Headers   []RecordHeader
	Metadata  any
	Offset    int64
	Partition int32
	Timestamp time.Time
}

type ProducerError struct {
	Msg *ProducerMessage
	Err error
}

func (pe ProducerError) Error() string { return "" }

type Encoder interface {
	Encode() ([]byte, error)
	Length() int
}

type StringEncoder string

func (s StringEncoder) Encode() ([]byte, error) { return nil, nil }

func (s StringEncoder) Length() int { return 0 }

type ByteEncoder []byte

func (b ByteEncoder) Encode() ([]byte, error) { return nil, nil }

func (b ByteEncoder) Length() int { return 0 }

type Config struct {
	Producer struct {
		Return struct {
			Successes bool
			Errors    bool
		}
	}
	Consumer struct {
		Return  struct{ Errors bool }
		Offsets struct {
			AutoCommit struct {
				Enable   bool
				Interval time.Duration
			}
			Initial int64
		}
	}
	ClientID string
}

func NewConfig() *Config { return nil }

func NewConsumerGroup(addrs []string, groupID string, config *Config) (ConsumerGroup, error) {
	return nil, nil
}

func NewSyncProducer(addrs []string, config *Config) (SyncProducer, error) { return nil, nil }

func NewAsyncProducer(addrs []string, conf *Config) (AsyncProducer, error) { return nil, nil }

func NewConsumer(addrs []string, config *Config) (Consumer, error) { return nil, nil }

type Consumer interface {
	Close() error
	ConsumePartition(topic string, partition int32, offset int64) (PartitionConsumer, error)
	HighWaterMarks() map[string]map[int32]int64
	Partitions(topic string) ([]int32, error)
	Pause(topicPartitions map[string][]int32)
	PauseAll()
	Resume(topicPartitions map[string][]int32)
	ResumeAll()
	Topics() ([]string, error)
}

type PartitionConsumer interface {
	AsyncClose()
	Close() error
	Errors() <-chan *ConsumerError
	HighWaterMarkOffset() int64
	IsPaused() bool
	Messages() <-chan *ConsumerMessage
	Pause()
	Resume()
}

type ConsumerError struct {
	Topic     string
	Partition int32
	Err       error
}

func (ce ConsumerError) Error() string { return "" }

func (ce ConsumerError) Unwrap() error { return nil }

const OffsetNewest int64 = -1

const OffsetOldest int64 = -2

type ConsumerGroupMetadata struct {
}

type PartitionOffsetMetadata struct {
}

type ProducerTxnStatusFlag int16
