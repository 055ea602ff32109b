// Package readpref is a stub of go.mongodb.org/mongo-driver@v1.17.10 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package readpref

type ReadPref struct {
}

func Primary() *ReadPref { return nil }
