// Package amqp is a stub of github.com/streadway/amqp@v1.1.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package amqp

import (
	"time"
)

func Dial(url string) (*Connection, error) { return nil, nil }

func DialConfig(url string, config Config) (*Connection, error) { return nil, nil }

type Config struct {
	SASL       []Authentication
	Vhost      string
	ChannelMax int
	FrameSize  int
	Heartbeat  time.Duration
	Properties Table
	Locale     string
}

type Authentication interface {
	Mechanism() string
	Response() string
}

type Connection struct {
}

func (c *Connection) Channel() (*Channel, error) { return nil, nil }

func (c *Connection) Close() error { return nil }

func (c *Connection) IsClosed() bool { return false }

func (c *Connection) NotifyClose(receiver chan *Error) chan *Error { return nil }

type Channel struct {
}

func (ch *Channel) Consume(queue string, consumer string, autoAck bool, exclusive bool, noLocal bool, noWait bool, args Table) (<-chan Delivery, error) {
	return nil, nil
}

func (ch *Channel) Publish(exchange string, key string, mandatory bool, immediate bool, msg Publishing) error {
	return nil
}

func (ch *Channel) Qos(prefetchCount int, prefetchSize int, global bool) error { return nil }

func (ch *Channel) Ack(tag uint64, multiple bool) error { return nil }

func (ch *Channel) Nack(tag uint64, multiple bool, requeue bool) error { return nil }

func (ch *Channel) Reject(tag uint64, requeue bool) error { return nil }

func (ch *Channel) Close() error { return nil }

func (ch *Channel) Get(queue string, autoAck bool) (msg Delivery, ok bool, err error) {
	return Delivery{}, false, nil
}

func (ch *Channel) QueueDeclare(name string, durable bool, autoDelete bool, exclusive bool, noWait bool, args Table) (Queue, error) {
	return Queue{}, nil
}

func (ch *Channel) QueueBind(name string, key string, exchange string, noWait bool, args Table) error {
	return nil
}

func (ch *Channel) ExchangeDeclare(name string, kind string, durable bool, autoDelete bool, internal bool, noWait bool, args Table) error {
	return nil
}

func (ch *Channel) Confirm(noWait bool) error { return nil }

func (ch *Channel) Tx() error { return nil }

func (ch *Channel) TxCommit() error { return nil }

func (ch *Channel) TxRollback() error { return nil }

func (ch *Channel) NotifyClose(c chan *Error) chan *Error { return nil }

type Delivery struct {
	Acknowledger    Acknowledger
	Headers         Table
	ContentType     string
	ContentEncoding string
	DeliveryMode    uint8
	Priority        uint8
	CorrelationId   string
	ReplyTo         string
	Expiration      string
	MessageId       string
	Timestamp       time.Time
	Type            string
	UserId          string
	AppId           string
	ConsumerTag     string
	MessageCount    uint32
	DeliveryTag     uint64
	Redelivered     bool
	Exchange        string
	RoutingKey      string
	Body            []byte
}

func (d Delivery) Ack(multiple bool) error { return nil }

func (d Delivery) Nack(multiple bool, requeue bool) error { return nil }

func (d Delivery) Reject(requeue bool) error { return nil }

type Acknowledger interface {
	Ack(tag uint64, multiple bool) error
	Nack(tag uint64, multiple bool, requeue bool) error
	Reject(tag uint64, requeue bool) error
}

type Publishing struct {
	Headers         Table
	ContentType     string
	ContentEncoding string
	DeliveryMode    uint8
	Priority        uint8
	CorrelationId   string
	ReplyTo         string
	Expiration      string
	MessageId       string
	Timestamp       time.Time
	Type            string
	UserId          string
	AppId           string
	Body            []byte
}

type Table map[string]interface{}

type Queue struct {
	Name      string
	Messages  int
	Consumers int
}

type Error struct {
	Code    int
	Reason  string
	Server  bool
	Recover bool
}

func (e Error) Error() string { return "" }

const Transient uint8 = 1

const Persistent uint8 = 2
