// Package logger is a stub of gorm.io/gorm@v1.31.2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package logger

import (
	"errors"
)

var ErrRecordNotFound = errors.New("record not found")
