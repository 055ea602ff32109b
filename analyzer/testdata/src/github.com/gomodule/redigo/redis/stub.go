// Package redis is a stub of github.com/gomodule/redigo/redis: the
// signatures the catalog names.
package redis

import "context"

// Conn is a connection to a Redis server.
type Conn interface {
	Close() error
	Err() error
	Do(commandName string, args ...interface{}) (reply interface{}, err error)
	Send(commandName string, args ...interface{}) error
	Flush() error
	Receive() (reply interface{}, err error)
}

// ConnWithContext is a Conn whose commands take a context.
type ConnWithContext interface {
	Conn
	DoContext(ctx context.Context, commandName string, args ...interface{}) (reply interface{}, err error)
}

// DoContext runs a command with a context.
func DoContext(c Conn, ctx context.Context, cmd string, args ...interface{}) (interface{}, error) {
	return nil, nil
}

// Pool is a pool of connections.
type Pool struct {
	Dial func() (Conn, error)
}

// Get returns a connection.
func (p *Pool) Get() Conn { return nil }
