// Package slack is a stub of github.com/slack-go/slack@v0.17.3 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package slack

import "context"

// Client is a Slack Web API client.
type Client struct{}

// Option configures a Client.
type Option func(*Client)

type sendConfig struct{}

// MsgOption configures a message.
type MsgOption func(*sendConfig) error

func New(token string, options ...Option) *Client { return &Client{} }

func MsgOptionText(text string, escape bool) MsgOption { return nil }

func (api *Client) PostMessage(channelID string, options ...MsgOption) (string, string, error) {
	return "", "", nil
}

func (api *Client) PostMessageContext(ctx context.Context, channelID string, options ...MsgOption) (string, string, error) {
	return "", "", nil
}

func (api *Client) PostEphemeral(channelID, userID string, options ...MsgOption) (string, error) {
	return "", nil
}

func (api *Client) PostEphemeralContext(ctx context.Context, channelID, userID string, options ...MsgOption) (timestamp string, err error) {
	return "", nil
}

func (api *Client) SendMessage(channel string, options ...MsgOption) (string, string, string, error) {
	return "", "", "", nil
}

func (api *Client) SendMessageContext(ctx context.Context, channelID string, options ...MsgOption) (_channel string, _timestampOrScheduledMessageId string, _text string, err error) {
	return "", "", "", nil
}
