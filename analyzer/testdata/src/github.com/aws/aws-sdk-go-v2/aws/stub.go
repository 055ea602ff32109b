// Package aws is a stub of github.com/aws/aws-sdk-go-v2@v1.48.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package aws

type Config struct {
	Region string
}

func String(v string) *string { return nil }

func ToString(p *string) (v string) { return "" }

func Int32(v int32) *int32 { return nil }

func ToInt32(p *int32) (v int32) { return 0 }

func Bool(v bool) *bool { return nil }
