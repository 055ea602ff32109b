// Package guard has the name of idem's runtime package, so the generated
// code must import one of them under another name.
package guard

// Event is a message type in a package whose name clashes.
type Event struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}
