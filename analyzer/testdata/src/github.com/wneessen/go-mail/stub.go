// Package mail is a stub of github.com/wneessen/go-mail@v0.8.1 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package mail

import "context"

type (
	Option func(*Client) error

	Client struct {
	}
)

func NewClient(host string, opts ...Option) (*Client, error) { return nil, nil }

func WithPort(port int) Option { return nil }

func WithUsername(username string) Option { return nil }

func WithPassword(password string) Option { return nil }

func (c *Client) DialWithContext(ctxDial context.Context) error { return nil }

func (c *Client) Close() error { return nil }

func (c *Client) DialAndSend(messages ...*Msg) error { return nil }

func (c *Client) DialAndSendWithContext(ctx context.Context, messages ...*Msg) (err error) {
	return nil
}

func (c *Client) Send(messages ...*Msg) (returnErr error) { return nil }

type Msg struct {
}

type MsgOption func(*Msg)

func NewMsg(opts ...MsgOption) *Msg { return nil }

func (m *Msg) From(from string) error { return nil }

func (m *Msg) To(rcpts ...string) error { return nil }

func (m *Msg) Subject(subj string) {}

func (m *Msg) SetBodyString(contentType ContentType, content string, opts ...PartOption) {}

type ContentType string

const TypeTextPlain ContentType = "text/plain"

type Part struct {
}

type PartOption func(*Part)
