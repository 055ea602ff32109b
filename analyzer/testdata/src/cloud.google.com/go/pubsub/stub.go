// Package pubsub is a stub of cloud.google.com/go/pubsub@v1.52.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pubsub

import (
	ipubsub "cloud.google.com/go/internal/pubsub"
	"context"
	"google.golang.org/api/option"
	"time"
)

type Client struct {
}

func (c *Client) Subscription(id string) *Subscription { return nil }

func (c *Client) Topic(id string) *Topic { return nil }

func (c *Client) Close() error { return nil }

func (c *Client) Project() string { return "" }

func NewClient(ctx context.Context, projectID string, opts ...option.ClientOption) (c *Client, err error) {
	return nil, nil
}

type Subscription struct {
	ReceiveSettings ReceiveSettings
}

func (s *Subscription) Receive(ctx context.Context, f func(context.Context, *Message)) error {
	return nil
}

func (s *Subscription) ID() string { return "" }

func (s *Subscription) String() string { return "" }

type ReceiveSettings struct {
	MaxExtension           time.Duration
	MaxOutstandingMessages int
	MaxOutstandingBytes    int
	NumGoroutines          int
	Synchronous            bool
}

type Topic struct {
}

func (t *Topic) Publish(ctx context.Context, msg *Message) *PublishResult { return nil }

func (t *Topic) Stop() {}

func (t *Topic) ID() string { return "" }

func (t *Topic) String() string { return "" }

type Message = ipubsub.Message

type AckResult = ipubsub.AckResult

type AcknowledgeStatus = ipubsub.AcknowledgeStatus

type PublishResult = ipubsub.PublishResult

const AcknowledgeStatusSuccess AcknowledgeStatus = 0

const AcknowledgeStatusPermissionDenied AcknowledgeStatus = 1

const AcknowledgeStatusFailedPrecondition AcknowledgeStatus = 2

const AcknowledgeStatusInvalidAckID AcknowledgeStatus = 3

const AcknowledgeStatusOther AcknowledgeStatus = 4
