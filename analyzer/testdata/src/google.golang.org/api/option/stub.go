// Package option is a stub of google.golang.org/api@v0.304.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package option

import (
	"google.golang.org/api/internal"
)

type ClientOption interface {
	Apply(*internal.DialSettings)
}

func WithoutAuthentication() ClientOption { return nil }

func WithEndpoint(url string) ClientOption { return nil }

func WithCredentialsFile(filename string) ClientOption { return nil }
