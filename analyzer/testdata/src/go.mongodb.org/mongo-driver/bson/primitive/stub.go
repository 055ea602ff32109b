// Package primitive is a stub of go.mongodb.org/mongo-driver@v1.17.10 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package primitive

type M map[string]interface{}

type D []E

type E struct {
	Key   string
	Value interface{}
}

type A []interface{}

type ObjectID [12]byte

func (id ObjectID) Hex() string { return "" }

func (id ObjectID) String() string { return "" }

func NewObjectID() ObjectID { return ObjectID{} }

var NilObjectID ObjectID // real initializer:
