// Package mailgun is a stub of github.com/mailgun/mailgun-go/v4@v4.23.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package mailgun

import "context"

type Mailgun interface {
	Domain() string
	Send(ctx context.Context, m *Message) (mes string, id string, err error)
}

type MailgunImpl struct {
}

func NewMailgun(domain, apiKey string) *MailgunImpl { return nil }

func (mg *MailgunImpl) Domain() string { return "" }

func (mg *MailgunImpl) Send(ctx context.Context, m *Message) (mes, id string, err error) {
	return "", "", nil
}

type Message struct {
}

func NewMessage(from, subject, text string, to ...string) *Message { return nil }

func (m *Message) AddRecipient(recipient string) error { return nil }

func (m *Message) SetHtml(html string) {}
