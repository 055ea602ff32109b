// Package rocketmq is a stub of github.com/apache/rocketmq-client-go/v2@v2.1.3-0.20251226070945-2173d070fd1b for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package rocketmq

import (
	"context"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

type PushConsumer interface {
	GetOffsetDiffMap() map[string]int64
	Resume()
	Shutdown() error
	Start() error
	Subscribe(topic string, selector consumer.MessageSelector, f func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error)) error
	Suspend()
	Unsubscribe(topic string) error
}

func NewPushConsumer(opts ...consumer.Option) (PushConsumer, error) { return nil, nil }

type Producer interface {
	SendAsync(ctx context.Context, mq func(ctx context.Context, result *primitive.SendResult, err error), msg ...*primitive.Message) error
	SendOneWay(ctx context.Context, mq ...*primitive.Message) error
	SendSync(ctx context.Context, mq ...*primitive.Message) (*primitive.SendResult, error)
	Shutdown() error
	Start() error
}

func NewProducer(opts ...producer.Option) (Producer, error) { return nil, nil }
