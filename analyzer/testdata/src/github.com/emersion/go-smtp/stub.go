// Package smtp is a stub of github.com/emersion/go-smtp@v0.26.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package smtp

import (
	"io"

	"github.com/emersion/go-sasl"
)

type Client struct {
}

func Dial(addr string) (*Client, error) { return nil, nil }

func (c *Client) Close() error { return nil }

func (c *Client) Hello(localName string) error { return nil }

func (c *Client) Auth(a sasl.Client) error { return nil }

func (c *Client) Mail(from string, opts *MailOptions) error { return nil }

func (c *Client) Rcpt(to string, opts *RcptOptions) error { return nil }

func (c *Client) Data() (*DataCommand, error) { return nil, nil }

func (c *Client) SendMail(from string, to []string, r io.Reader) error { return nil }

func (c *Client) Quit() error { return nil }

type DataCommand struct {
}

func (cmd *DataCommand) Write(b []byte) (int, error) { return 0, nil }

func (cmd *DataCommand) Close() error { return nil }

type MailOptions struct {
}

type RcptOptions struct {
}

func SendMail(addr string, a sasl.Client, from string, to []string, r io.Reader) error { return nil }

func SendMailTLS(addr string, a sasl.Client, from string, to []string, r io.Reader) error { return nil }
