// Package kafka is a stub of github.com/segmentio/kafka-go@v0.4.51 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package kafka

import (
	"context"
	"github.com/segmentio/kafka-go/protocol"
	"net"
	"time"
)

type Reader struct {
}

func (r *Reader) ReadMessage(ctx context.Context) (Message, error) { return Message{}, nil }

func (r *Reader) FetchMessage(ctx context.Context) (Message, error) { return Message{}, nil }

func (r *Reader) CommitMessages(ctx context.Context, msgs ...Message) error { return nil }

func (r *Reader) Close() error { return nil }

func (r *Reader) Config() ReaderConfig { return ReaderConfig{} }

func (r *Reader) SetOffset(offset int64) error { return nil }

type ReaderConfig struct {
	Brokers        []string
	GroupID        string
	GroupTopics    []string
	Topic          string
	Partition      int
	MinBytes       int
	MaxBytes       int
	MaxWait        time.Duration
	CommitInterval time.Duration
	StartOffset    int64
}

func NewReader(config ReaderConfig) *Reader { return nil }

type Message struct {
	Topic         string
	Partition     int
	Offset        int64
	HighWaterMark int64
	Key           []byte
	Value         []byte
	Headers       []Header
	WriterData    interface{}
	Time          time.Time
}

type Header = protocol.Header

type Writer struct {
	Addr                   net.Addr
	Topic                  string
	BatchSize              int
	Async                  bool
	AllowAutoTopicCreation bool
}

func (w *Writer) WriteMessages(ctx context.Context, msgs ...Message) error { return nil }

func (w *Writer) Close() error { return nil }

func TCP(address ...string) net.Addr { return nil }

const FirstOffset int64 = -2

const LastOffset int64 = -1
