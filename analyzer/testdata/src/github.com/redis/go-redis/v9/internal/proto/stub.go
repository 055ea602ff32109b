// Package proto is a stub of github.com/redis/go-redis/v9@v9.23.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package proto

type RedisError string

func (e RedisError) Error() string { return "" }

func (_ RedisError) RedisError() {}

const Nil RedisError = "redis: nil"
