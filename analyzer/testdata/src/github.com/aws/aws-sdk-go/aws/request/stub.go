// Package request is a stub of github.com/aws/aws-sdk-go@v1.55.8 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package request

type Request struct {
}

type Option func(*Request)
