// Package bson is a stub of go.mongodb.org/mongo-driver@v1.17.10 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package bson

import (
	"go.mongodb.org/mongo-driver/bson/primitive"
)

type M = primitive.M

type D = primitive.D

type E = primitive.E

type A = primitive.A

type Raw []byte

func Marshal(val interface{}) ([]byte, error) { return nil, nil }

func Unmarshal(data []byte, val interface{}) error { return nil }
