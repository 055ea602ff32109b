// Package nats is a stub of github.com/nats-io/nats.go@v1.55.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package nats

import (
	"context"
	"time"
)

func Connect(url string, options ...Option) (*Conn, error) { return nil, nil }

type Option func(*Options) error

type Options struct {
}

type Conn struct {
}

func (nc *Conn) Subscribe(subj string, cb MsgHandler) (*Subscription, error) { return nil, nil }

func (nc *Conn) QueueSubscribe(subj string, queue string, cb MsgHandler) (*Subscription, error) {
	return nil, nil
}

func (nc *Conn) ChanSubscribe(subj string, ch chan *Msg) (*Subscription, error) { return nil, nil }

func (nc *Conn) Publish(subj string, data []byte) error { return nil }

func (nc *Conn) PublishMsg(m *Msg) error { return nil }

func (nc *Conn) Request(subj string, data []byte, timeout time.Duration) (*Msg, error) {
	return nil, nil
}

func (nc *Conn) RequestMsg(msg *Msg, timeout time.Duration) (*Msg, error) { return nil, nil }

func (nc *Conn) JetStream(opts ...JSOpt) (JetStreamContext, error) { return nil, nil }

func (nc *Conn) Close() {}

func (nc *Conn) Drain() error { return nil }

type Msg struct {
	Subject string
	Reply   string
	Header  Header
	Data    []byte
	Sub     *Subscription
}

func (m *Msg) Ack(opts ...AckOpt) error { return nil }

func (m *Msg) AckSync(opts ...AckOpt) error { return nil }

func (m *Msg) Nak(opts ...AckOpt) error { return nil }

func (m *Msg) NakWithDelay(delay time.Duration, opts ...AckOpt) error { return nil }

func (m *Msg) Term(opts ...AckOpt) error { return nil }

func (m *Msg) InProgress(opts ...AckOpt) error { return nil }

func (m *Msg) Metadata() (*MsgMetadata, error) { return nil, nil }

func (m *Msg) Respond(data []byte) error { return nil }

func NewMsg(subject string) *Msg { return nil }

type MsgHandler func(msg *Msg)

type Header map[string][]string

func (h Header) Get(key string) string { return "" }

func (h Header) Set(key string, value string) {}

func (h Header) Add(key string, value string) {}

type Subscription struct {
}

func (sub *Subscription) Fetch(batch int, opts ...PullOpt) ([]*Msg, error) { return nil, nil }

func (sub *Subscription) FetchBatch(batch int, opts ...PullOpt) (MessageBatch, error) {
	return nil, nil
}

func (s *Subscription) NextMsg(timeout time.Duration) (*Msg, error) { return nil, nil }

func (s *Subscription) NextMsgWithContext(ctx context.Context) (*Msg, error) { return nil, nil }

func (s *Subscription) Unsubscribe() error { return nil }

func (s *Subscription) Drain() error { return nil }

type MessageBatch interface {
	Done() <-chan struct{}
	Error() error
	Messages() <-chan *Msg
}

type JetStreamContext interface {
	JetStream
	KeyValueManager
}

type KeyValueManager interface {
	KeyValue(bucket string) (KeyValue, error)
}

type KeyValue interface {
	Get(key string) (entry KeyValueEntry, err error)
	GetRevision(key string, revision uint64) (entry KeyValueEntry, err error)
	Put(key string, value []byte) (revision uint64, err error)
	PutString(key string, value string) (revision uint64, err error)
	Create(key string, value []byte) (revision uint64, err error)
	Update(key string, value []byte, last uint64) (revision uint64, err error)
	Delete(key string, opts ...DeleteOpt) error
	Purge(key string, opts ...DeleteOpt) error
	Bucket() string
}

type KeyValueEntry interface {
	Bucket() string
	Key() string
	Value() []byte
	Revision() uint64
}

type DeleteOpt interface {
	configureDelete(opts *deleteOpts) error
}

type deleteOpts struct{}

type JetStream interface {
	ChanQueueSubscribe(subj string, queue string, ch chan *Msg, opts ...SubOpt) (*Subscription, error)
	ChanSubscribe(subj string, ch chan *Msg, opts ...SubOpt) (*Subscription, error)
	CleanupPublisher()
	Publish(subj string, data []byte, opts ...PubOpt) (*PubAck, error)
	PublishAsync(subj string, data []byte, opts ...PubOpt) (PubAckFuture, error)
	PublishAsyncComplete() <-chan struct{}
	PublishAsyncPending() int
	PublishMsg(m *Msg, opts ...PubOpt) (*PubAck, error)
	PublishMsgAsync(m *Msg, opts ...PubOpt) (PubAckFuture, error)
	PullSubscribe(subj string, durable string, opts ...SubOpt) (*Subscription, error)
	QueueSubscribe(subj string, queue string, cb MsgHandler, opts ...SubOpt) (*Subscription, error)
	QueueSubscribeSync(subj string, queue string, opts ...SubOpt) (*Subscription, error)
	Subscribe(subj string, cb MsgHandler, opts ...SubOpt) (*Subscription, error)
	SubscribeSync(subj string, opts ...SubOpt) (*Subscription, error)
}

type JSOpt interface {
	configureJSContext(opts *jsOpts) error
}

type SubOpt interface {
	configureSubscribe(opts *subOpts) error
}

type PubOpt interface {
	configurePublish(opts *pubOpts) error
}

type AckOpt interface {
	configureAck(opts *ackOpts) error
}

type PullOpt interface {
	configurePull(opts *pullOpts) error
}

type PubAck struct {
	Stream    string `json:"stream"`
	Sequence  uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Domain    string `json:"domain,omitempty"`
}

type PubAckFuture interface {
	Err() <-chan error
	Msg() *Msg
	Ok() <-chan *PubAck
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

func ManualAck() SubOpt { return nil }

func AckExplicit() SubOpt { return nil }

func AckNone() SubOpt { return nil }

func AckAll() SubOpt { return nil }

func Durable(consumer string) SubOpt { return nil }

func Bind(stream string, consumer string) SubOpt { return nil }

func BindStream(stream string) SubOpt { return nil }

func DeliverAll() SubOpt { return nil }

func DeliverNew() SubOpt { return nil }

func MaxAckPending(n int) SubOpt { return nil }

type AckWait int64

func (ttl AckWait) configureAck(opts *ackOpts) error { return nil }

func (ttl AckWait) configurePublish(opts *pubOpts) error { return nil }

func (ttl AckWait) configureSubscribe(opts *subOpts) error { return nil }

func MaxDeliver(n int) SubOpt { return nil }

func MsgId(id string) PubOpt { return nil }

const DefaultURL = "nats://127.0.0.1:4222"

type jsOpts struct {
}

type subOpts struct {
}

type pubOpts struct {
}

type ackOpts struct {
}

type pullOpts struct {
}

func (nc *Conn) RequestWithContext(ctx context.Context, subj string, data []byte) (*Msg, error) {
	return nil, nil
}
