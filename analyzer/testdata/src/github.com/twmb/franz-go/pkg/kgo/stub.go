// Package kgo is a stub of github.com/twmb/franz-go@v1.22.3 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package kgo

import (
	"context"
	"errors"
	"time"
)

type Client struct {
}

func (cl *Client) PollFetches(ctx context.Context) Fetches { return nil }

func (cl *Client) PollRecords(ctx context.Context, maxPollRecords int) Fetches { return nil }

func (cl *Client) CommitRecords(ctx context.Context, rs ...*Record) error { return nil }

func (cl *Client) CommitUncommittedOffsets(ctx context.Context) error { return nil }

func (cl *Client) CommitMarkedOffsets(ctx context.Context) error { return nil }

func (cl *Client) MarkCommitRecords(rs ...*Record) {}

func (cl *Client) AllowRebalance() {}

func (cl *Client) Produce(ctx context.Context, r *Record, promise func(*Record, error)) {}

func (cl *Client) ProduceSync(ctx context.Context, rs ...*Record) ProduceResults { return nil }

func (cl *Client) TryProduce(ctx context.Context, r *Record, promise func(*Record, error)) {}

func (cl *Client) Flush(ctx context.Context) error { return nil }

func (cl *Client) Close() {}

func NewClient(opts ...Opt) (*Client, error) { return nil, nil }

type Opt interface {
	apply(*cfg)
}

type ConsumerOpt interface {
	Opt
	consumerOpt()
}

type GroupOpt interface {
	Opt
	groupOpt()
}

type ProducerOpt interface {
	Opt
	producerOpt()
}

type Fetches []Fetch

func (fs Fetches) EachRecord(fn func(*Record)) {}

func (fs Fetches) Records() []*Record { return nil }

func (fs Fetches) EachError(fn func(string, int32, error)) {}

func (fs Fetches) Errors() []FetchError { return nil }

func (fs Fetches) Err() error { return nil }

func (fs Fetches) Empty() bool { return false }

func (fs Fetches) IsClientClosed() bool { return false }

func (fs Fetches) EachPartition(fn func(FetchTopicPartition)) {}

func (fs Fetches) RecordIter() *FetchesRecordIter { return nil }

func (fs Fetches) NumRecords() (n int) { return 0 }

type FetchesRecordIter struct {
}

func (i *FetchesRecordIter) Done() bool { return false }

func (i *FetchesRecordIter) Next() *Record { return nil }

type FetchTopicPartition struct {
	Topic string
	FetchPartition
}

type FetchError struct {
	Topic     string
	Partition int32
	Err       error
}

type Fetch struct {
}

type FetchTopic struct {
	Topic      string
	TopicID    [16]byte
	Partitions []FetchPartition
}

type FetchPartition struct {
	Partition int32
	Err       error
	Records   []*Record
}

type Record struct {
	Key           []byte
	Value         []byte
	Headers       []RecordHeader
	Timestamp     time.Time
	Topic         string
	Partition     int32
	Attrs         RecordAttrs
	ProducerEpoch int16
	ProducerID    int64
	LeaderEpoch   int32
	Offset        int64
	Context       context.Context
}

type RecordHeader struct {
	Key   string
	Value []byte
}

type ProduceResults []ProduceResult

func (rs ProduceResults) FirstErr() error { return nil }

func (rs ProduceResults) First() (*Record, error) { return nil, nil }

type ProduceResult struct {
	Record *Record
	Err    error
}

func DisableAutoCommit() GroupOpt { return nil }

func ConsumerGroup(group string) GroupOpt { return nil }

func ConsumeTopics(topics ...string) ConsumerOpt { return nil }

func SeedBrokers(seeds ...string) Opt { return nil }

func AutoCommitMarks() GroupOpt { return nil }

func BlockRebalanceOnPoll() GroupOpt { return nil }

func AutoCommitInterval(interval time.Duration) GroupOpt { return nil }

func StringRecord(value string) *Record { return nil }

func KeyStringRecord(key string, value string) *Record { return nil }

func SliceRecord(value []byte) *Record { return nil }

func KeySliceRecord(key []byte, value []byte) *Record { return nil }

var ErrClientClosed = errors.New("client closed")

type cfg struct {
}

type RecordAttrs struct {
}
