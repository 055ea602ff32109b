// Package messaging is a stub of firebase.google.com/go/v4@v4.19.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package messaging

import "context"

type Message struct {
	Data         map[string]string `json:"data,omitempty"`
	Notification *Notification     `json:"notification,omitempty"`
	Token        string            `json:"token,omitempty"`
	Topic        string            `json:"-"`
	Condition    string            `json:"condition,omitempty"`
}

type Notification struct {
	Title    string `json:"title,omitempty"`
	Body     string `json:"body,omitempty"`
	ImageURL string `json:"image,omitempty"`
}

type MulticastMessage struct {
	Tokens       []string
	Data         map[string]string
	Notification *Notification
}

type SendResponse struct {
	Success   bool
	MessageID string
	Error     error
}

type BatchResponse struct {
	SuccessCount int
	FailureCount int
	Responses    []*SendResponse
}

type Client struct {
	*fcmClient
	*iidClient
}

type fcmClient struct {
}

func (c *fcmClient) Send(ctx context.Context, message *Message) (string, error) { return "", nil }

func (c *fcmClient) SendDryRun(ctx context.Context, message *Message) (string, error) { return "", nil }

func (c *fcmClient) SendEach(ctx context.Context, messages []*Message) (*BatchResponse, error) {
	return nil, nil
}

func (c *fcmClient) SendEachForMulticast(ctx context.Context, message *MulticastMessage) (*BatchResponse, error) {
	return nil, nil
}

func (c *fcmClient) SendAll(ctx context.Context, messages []*Message) (*BatchResponse, error) {
	return nil, nil
}

func (c *fcmClient) SendMulticast(ctx context.Context, message *MulticastMessage) (*BatchResponse, error) {
	return nil, nil
}

type iidClient struct {
}
