// Package pubsub is a stub of cloud.google.com/go/pubsub/v2@v2.9.0 for analyzer tests: signatures mirror the real API.
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

func (c *Client) Subscriber(nameOrID string) *Subscriber { return nil }

func (c *Client) Publisher(topicNameOrID string) *Publisher { return nil }

func (c *Client) Close() error { return nil }

func (c *Client) Project() string { return "" }

func NewClient(ctx context.Context, projectID string, opts ...option.ClientOption) (c *Client, err error) {
	return nil, nil
}

type Subscriber struct {
	ReceiveSettings ReceiveSettings
}

func (s *Subscriber) Receive(ctx context.Context, f func(context.Context, *Message)) error {
	return nil
}

func (s *Subscriber) ID() string { return "" }

func (s *Subscriber) String() string { return "" }

type ReceiveSettings struct {
	MaxExtension           time.Duration
	MaxOutstandingMessages int
	MaxOutstandingBytes    int
	NumGoroutines          int
}

type Publisher struct {
}

func (t *Publisher) Publish(ctx context.Context, msg *Message) *PublishResult { return nil }

func (t *Publisher) Stop() {}

func (t *Publisher) Flush() {}

func (t *Publisher) ID() string { return "" }

func (t *Publisher) String() string { return "" }

type Message = ipubsub.Message

type AckResult = ipubsub.AckResult

type AcknowledgeStatus = ipubsub.AcknowledgeStatus

type PublishResult = ipubsub.PublishResult

const AcknowledgeStatusSuccess AcknowledgeStatus = 0

const AcknowledgeStatusPermissionDenied AcknowledgeStatus = 1

const AcknowledgeStatusFailedPrecondition AcknowledgeStatus = 2

const AcknowledgeStatusInvalidAckID AcknowledgeStatus = 3

const AcknowledgeStatusOther AcknowledgeStatus = 4
