// Package aws is a stub of github.com/aws/aws-sdk-go@v1.55.8 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package aws

import "context"

type Context = context.Context

func String(v string) *string { return nil }

func StringValue(v *string) string { return "" }

func Int64(v int64) *int64 { return nil }

func Int64Value(v *int64) int64 { return 0 }
