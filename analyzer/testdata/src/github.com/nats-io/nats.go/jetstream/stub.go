// Package jetstream is a stub of github.com/nats-io/nats.go@v1.55.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package jetstream

import (
	"context"
	nats "github.com/nats-io/nats.go"
	"time"
)

func New(nc *nats.Conn, opts ...JetStreamOpt) (JetStream, error) { return nil, nil }

type JetStreamOpt func(*JetStreamOptions) error

type JetStream interface {
	StreamConsumerManager
	StreamManager
	Publisher
	KeyValueManager
	Conn() *nats.Conn
}

type KeyValueManager interface {
	KeyValue(ctx context.Context, bucket string) (KeyValue, error)
}

type KeyValue interface {
	Get(ctx context.Context, key string) (KeyValueEntry, error)
	GetRevision(ctx context.Context, key string, revision uint64) (KeyValueEntry, error)
	Put(ctx context.Context, key string, value []byte) (uint64, error)
	PutString(ctx context.Context, key string, value string) (uint64, error)
	Create(ctx context.Context, key string, value []byte, opts ...KVCreateOpt) (uint64, error)
	Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error)
	Delete(ctx context.Context, key string, opts ...KVDeleteOpt) error
	Purge(ctx context.Context, key string, opts ...KVDeleteOpt) error
	Bucket() string
}

type KeyValueEntry interface {
	Bucket() string
	Key() string
	Value() []byte
	Revision() uint64
	Created() time.Time
	Delta() uint64
	Operation() KeyValueOp
}

type KeyValueOp uint8

type KVCreateOpt interface {
	configureCreate(opts *createOpts) error
}

type KVDeleteOpt interface {
	configureDelete(opts *deleteOpts) error
}

type createOpts struct{}

type deleteOpts struct{}

type StreamConsumerManager interface {
	Consumer(ctx context.Context, stream string, consumer string) (Consumer, error)
	CreateConsumer(ctx context.Context, stream string, cfg ConsumerConfig) (Consumer, error)
	CreateOrUpdateConsumer(ctx context.Context, stream string, cfg ConsumerConfig) (Consumer, error)
}

type StreamManager interface {
	CreateOrUpdateStream(ctx context.Context, cfg StreamConfig) (Stream, error)
	CreateStream(ctx context.Context, cfg StreamConfig) (Stream, error)
	Stream(ctx context.Context, stream string) (Stream, error)
}

type Publisher interface {
	CleanupPublisher()
	Publish(ctx context.Context, subject string, payload []byte, opts ...PublishOpt) (*PubAck, error)
	PublishAsync(subject string, payload []byte, opts ...PublishOpt) (PubAckFuture, error)
	PublishAsyncComplete() <-chan struct{}
	PublishAsyncPending() int
	PublishMsg(ctx context.Context, msg *nats.Msg, opts ...PublishOpt) (*PubAck, error)
	PublishMsgAsync(msg *nats.Msg, opts ...PublishOpt) (PubAckFuture, error)
}

type Stream interface {
	ConsumerManager
}

type ConsumerManager interface {
	Consumer(ctx context.Context, consumer string) (Consumer, error)
	CreateConsumer(ctx context.Context, cfg ConsumerConfig) (Consumer, error)
	CreateOrUpdateConsumer(ctx context.Context, cfg ConsumerConfig) (Consumer, error)
}

type Consumer interface {
	CachedInfo() *ConsumerInfo
	Consume(handler MessageHandler, opts ...PullConsumeOpt) (ConsumeContext, error)
	Fetch(batch int, opts ...FetchOpt) (MessageBatch, error)
	FetchBytes(maxBytes int, opts ...FetchOpt) (MessageBatch, error)
	FetchNoWait(batch int) (MessageBatch, error)
	Info(context.Context) (*ConsumerInfo, error)
	Messages(opts ...PullMessagesOpt) (MessagesContext, error)
	Next(opts ...FetchOpt) (Msg, error)
}

type Msg interface {
	Ack() error
	Data() []byte
	DoubleAck(context.Context) error
	Headers() nats.Header
	InProgress() error
	Metadata() (*MsgMetadata, error)
	Nak() error
	NakWithDelay(delay time.Duration) error
	Reply() string
	Subject() string
	Term() error
	TermWithReason(reason string) error
}

type MessageHandler func(msg Msg)

type ConsumeContext interface {
	Closed() <-chan struct{}
	Drain()
	Stop()
}

type MessageBatch interface {
	Error() error
	Messages() <-chan Msg
}

type MessagesContext interface {
	Drain()
	Next(opts ...NextOpt) (Msg, error)
	Stop()
}

type PullConsumeOpt interface {
	configureConsume(*consumeOpts) error
}

type FetchOpt func(*pullRequest) error

type PullMessagesOpt interface {
	configureMessages(*consumeOpts) error
}

type MsgMetadata struct {
	Sequence     SequencePair
	NumDelivered uint64
	NumPending   uint64
	Timestamp    time.Time
	Stream       string
	Consumer     string
	Domain       string
}

type SequencePair struct {
	Consumer uint64 `json:"consumer_seq"`
	Stream   uint64 `json:"stream_seq"`
}

type PubAck struct {
	Stream    string `json:"stream"`
	Sequence  uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Domain    string `json:"domain,omitempty"`
	Value     string `json:"val,omitempty"`
}

type ConsumerConfig struct {
	Name          string        `json:"name,omitempty"`
	Durable       string        `json:"durable_name,omitempty"`
	AckPolicy     AckPolicy     `json:"ack_policy"`
	AckWait       time.Duration `json:"ack_wait,omitempty"`
	MaxDeliver    int           `json:"max_deliver,omitempty"`
	FilterSubject string        `json:"filter_subject,omitempty"`
}

type StreamConfig struct {
	Name     string   `json:"name"`
	Subjects []string `json:"subjects,omitempty"`
}

type AckPolicy int

const AckNonePolicy AckPolicy = 2

const AckAllPolicy AckPolicy = 1

const AckExplicitPolicy AckPolicy = 0

func FetchMaxWait(timeout time.Duration) FetchOpt { return nil }

type PullMaxMessages int

func (max PullMaxMessages) configureConsume(opts *consumeOpts) error { return nil }

func (max PullMaxMessages) configureMessages(opts *consumeOpts) error { return nil }

type ConsumeErrHandler func(consumeCtx ConsumeContext, err error)

func (c ConsumeErrHandler) configureConsume(opts *consumeOpts) error { return nil }

type ConsumeErrHandlerFunc func(consumeCtx ConsumeContext, err error)

type JetStreamOptions struct {
}

type PublishOpt func(*pubOpts) error

type PubAckFuture interface {
	Err() <-chan error
	Msg() *nats.Msg
	Ok() <-chan *PubAck
}

type ConsumerInfo struct {
}

type NextOpt interface {
	configureNext(*nextOpts)
}

type consumeOpts struct {
}

type pullRequest struct {
}

type pubOpts struct {
}

type nextOpts struct {
}
