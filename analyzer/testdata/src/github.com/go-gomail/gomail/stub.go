// Package gomail is a stub of github.com/go-gomail/gomail@v0.0.0-20150902115704-41f357289737 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package gomail

import "io"

type Message struct {
}

type MessageSetting func(m *Message)

func NewMessage(settings ...MessageSetting) *Message { return nil }

func (m *Message) SetHeader(field string, value ...string) {}

func (m *Message) SetAddressHeader(field, address, name string) {}

func (m *Message) SetBody(contentType, body string) {}

type Dialer struct {
	Host string
	Port int
	SSL  bool
}

func NewPlainDialer(host string, port int, username, password string) *Dialer { return nil }

func (d *Dialer) Dial() (SendCloser, error) { return nil, nil }

func (d *Dialer) DialAndSend(m ...*Message) error { return nil }

type Sender interface {
	Send(from string, to []string, msg io.WriterTo) error
}

type SendCloser interface {
	Sender
	Close() error
}

type SendFunc func(from string, to []string, msg io.WriterTo) error

func (f SendFunc) Send(from string, to []string, msg io.WriterTo) error { return nil }

func Send(s Sender, msg ...*Message) error { return nil }
