// Package mail is a stub of github.com/xhit/go-simple-mail/v2@v2.8.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package mail

import "time"

// Email is a message being built.
type Email struct{}

// SMTPServer is a server's settings.
type SMTPServer struct {
	Username       string
	Password       string
	ConnectTimeout time.Duration
	SendTimeout    time.Duration
	Host           string
	Port           int
	KeepAlive      bool
}

// SMTPClient is a connection to a server.
type SMTPClient struct{}

type contentType int

// The body types.
const (
	TextPlain contentType = iota
	TextHTML
)

func NewMSG() *Email { return &Email{} }

func NewSMTPClient() *SMTPServer { return &SMTPServer{} }

func (server *SMTPServer) Connect() (*SMTPClient, error) { return nil, nil }

func (smtpClient *SMTPClient) Close() error { return nil }

func (email *Email) SetFrom(address string) *Email { return email }

func (email *Email) AddTo(addresses ...string) *Email { return email }

func (email *Email) SetSubject(subject string) *Email { return email }

func (email *Email) SetBody(contentType contentType, body string) *Email { return email }

func (email *Email) Send(client *SMTPClient) error { return nil }

func (email *Email) SendEnvelopeFrom(from string, client *SMTPClient) error { return nil }
