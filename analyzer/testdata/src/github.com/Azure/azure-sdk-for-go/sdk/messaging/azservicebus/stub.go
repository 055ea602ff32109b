// Package azservicebus is a stub of github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus@v1.11.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package azservicebus

import (
	"context"
	"time"
)

type ClientOptions struct {
	ApplicationID string
}

type Client struct {
}

func NewClientFromConnectionString(connectionString string, options *ClientOptions) (*Client, error) {
	return nil, nil
}

func (client *Client) NewReceiverForQueue(queueName string, options *ReceiverOptions) (*Receiver, error) {
	return nil, nil
}

func (client *Client) NewReceiverForSubscription(topicName string, subscriptionName string, options *ReceiverOptions) (*Receiver, error) {
	return nil, nil
}

func (client *Client) NewSender(queueOrTopic string, options *NewSenderOptions) (*Sender, error) {
	return nil, nil
}

type ReceiverOptions struct {
}

type NewSenderOptions struct {
}

type ReceivedMessage struct {
	ApplicationProperties map[string]any
	Body                  []byte
	ContentType           *string
	CorrelationID         *string
	DeliveryCount         uint32
	EnqueuedTime          *time.Time
	LockToken             [16]byte
	MessageID             string
	SequenceNumber        *int64
}

type Message struct {
	ApplicationProperties map[string]any
	Body                  []byte
	ContentType           *string
}

type Receiver struct {
}

type ReceiveMessagesOptions struct {
	TimeAfterFirstMessage time.Duration
}

type CompleteMessageOptions struct {
}

type AbandonMessageOptions struct {
	PropertiesToModify map[string]any
}

type DeferMessageOptions struct {
	PropertiesToModify map[string]any
}

type DeadLetterOptions struct {
	ErrorDescription   *string
	Reason             *string
	PropertiesToModify map[string]any
}

func (r *Receiver) ReceiveMessages(ctx context.Context, maxMessages int, options *ReceiveMessagesOptions) ([]*ReceivedMessage, error) {
	return nil, nil
}

func (r *Receiver) Close(ctx context.Context) error { return nil }

func (r *Receiver) CompleteMessage(ctx context.Context, message *ReceivedMessage, options *CompleteMessageOptions) error {
	return nil
}

func (r *Receiver) AbandonMessage(ctx context.Context, message *ReceivedMessage, options *AbandonMessageOptions) error {
	return nil
}

func (r *Receiver) DeferMessage(ctx context.Context, message *ReceivedMessage, options *DeferMessageOptions) error {
	return nil
}

func (r *Receiver) DeadLetterMessage(ctx context.Context, message *ReceivedMessage, options *DeadLetterOptions) error {
	return nil
}

type (
	Sender struct {
	}
)

type SendMessageOptions struct {
}

func (s *Sender) SendMessage(ctx context.Context, message *Message, options *SendMessageOptions) error {
	return nil
}
