// Package kq is a stub of github.com/zeromicro/go-queue@v1.2.2 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package kq

import (
	"context"

	"github.com/zeromicro/go-zero/core/queue"
)

type KqConf struct {
	Brokers    []string
	Group      string
	Topic      string
	Processors int `json:",default=8"`
}

type (
	ConsumeHandle func(ctx context.Context, key, value string) error

	ConsumeHandler interface {
		Consume(ctx context.Context, key, value string) error
	}

	QueueOption func(*queueOptions)

	queueOptions struct {
	}
)

func MustNewQueue(c KqConf, handler ConsumeHandler, opts ...QueueOption) queue.MessageQueue {
	return nil
}

func NewQueue(c KqConf, handler ConsumeHandler, opts ...QueueOption) (queue.MessageQueue, error) {
	return nil, nil
}

func WithHandle(handle ConsumeHandle) ConsumeHandler { return nil }

type Pusher struct {
}

func NewPusher(addrs []string, topic string, opts ...PushOption) *Pusher { return nil }

func (p *Pusher) Push(ctx context.Context, v string) error { return nil }

func (p *Pusher) PushWithKey(ctx context.Context, key, v string) error { return nil }

func (p *Pusher) KPush(ctx context.Context, k, v string) error { return nil }

type PushOption func(options *pushOptions)

type pushOptions struct {
}
