// Package sasl is a stub of github.com/emersion/go-sasl@v0.0.0-20241020182733-b788ff22d5a6 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sasl

type Client interface {
	Start() (mech string, ir []byte, err error)

	Next(challenge []byte) (response []byte, err error)
}

func NewPlainClient(identity, username, password string) Client { return nil }
