// Package sendgrid is a stub of github.com/sendgrid/sendgrid-go@v3.16.1+incompatible for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sendgrid

import (
	"context"

	"github.com/sendgrid/rest"
	"github.com/sendgrid/sendgrid-go/helpers/mail"
)

type Client struct {
	rest.Request
}

func NewSendClient(key string) *Client { return nil }

func (cl *Client) Send(email *mail.SGMailV3) (*rest.Response, error) { return nil, nil }

func (cl *Client) SendWithContext(ctx context.Context, email *mail.SGMailV3) (*rest.Response, error) {
	return nil, nil
}
