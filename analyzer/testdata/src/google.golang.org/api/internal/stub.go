// Package internal is a stub of google.golang.org/api@v0.304.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package internal

type DialSettings struct {
}
