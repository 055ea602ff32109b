// Package grpc is a stub of google.golang.org/grpc@v1.85.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package grpc

import "context"

type ClientConn struct {
}

func (cc *ClientConn) Invoke(ctx context.Context, method string, args, reply any, opts ...CallOption) error {
	return nil
}

func (cc *ClientConn) Close() error { return nil }

type ClientConnInterface interface {
	Invoke(ctx context.Context, method string, args any, reply any, opts ...CallOption) error
}

type CallOption interface {
	before(*callInfo) error

	after(*callInfo, *csAttempt)
}

type callInfo struct {
}

type csAttempt struct {
}

type DialOption interface {
	apply(*dialOptions)
}

type dialOptions struct {
}

func NewClient(target string, opts ...DialOption) (conn *ClientConn, err error) { return nil, nil }
