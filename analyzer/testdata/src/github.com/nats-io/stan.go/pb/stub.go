// Package pb is a stub of github.com/nats-io/stan.go@v0.10.4 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package pb

// MsgProto is a NATS Streaming message on the wire.
type MsgProto struct {
	Sequence        uint64
	Subject         string
	Reply           string
	Data            []byte
	Timestamp       int64
	Redelivered     bool
	RedeliveryCount uint32
	CRC32           uint32
}
