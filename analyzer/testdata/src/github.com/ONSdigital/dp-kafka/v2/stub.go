// Package kafka is a stub of github.com/ONSdigital/dp-kafka/v2@v2.8.0 for analyzer tests: signatures mirror the real API.
package kafka

import "context"

type Message interface {
	GetData() []byte
	GetHeader(key string) string
	Context() context.Context
	Mark()
	Commit()
	Release()
	CommitAndRelease()
	Offset() int64
	UpstreamDone() chan struct{}
}

type ConsumerGroupChannels struct {
	Upstream chan Message
	Errors   chan error
	Ready    chan struct{}
	Closer   chan struct{}
	Closed   chan struct{}
}

type IConsumerGroup interface {
	Channels() *ConsumerGroupChannels
}

type ConsumerGroup struct {
}

func (cg *ConsumerGroup) Channels() *ConsumerGroupChannels { return nil }
