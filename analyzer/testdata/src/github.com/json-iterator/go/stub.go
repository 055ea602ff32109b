// Package jsoniter is a stub of github.com/json-iterator/go: the signatures
// the catalog names.
package jsoniter

import "io"

// API is a configured codec.
type API interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
	NewEncoder(w io.Writer) *Encoder
	NewDecoder(r io.Reader) *Decoder
}

// ConfigCompatibleWithStandardLibrary behaves like encoding/json.
var ConfigCompatibleWithStandardLibrary API

// Encoder writes values to a stream.
type Encoder struct{}

// Encode writes v.
func (e *Encoder) Encode(v any) error { return nil }

// Decoder reads values from a stream.
type Decoder struct{}

// Decode reads the next value into obj.
func (d *Decoder) Decode(obj any) error { return nil }

// Marshal encodes v.
func Marshal(v any) ([]byte, error) { return nil, nil }

// Unmarshal decodes data into v.
func Unmarshal(data []byte, v any) error { return nil }
