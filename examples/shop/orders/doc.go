// Package orders holds the guarded consumers of the shop example: the
// handlers idemgen generates from ../idem.yaml (the *_idem.go files, never
// edited) and the effects they run (the *_apply.go files, written once by
// idemgen as stubs and then filled in by hand).
//
// Service performs the effects: it implements the generated Effects
// interface, with what the effects need (the database's tables and
// dialect, the SMS provider); NewHandlers builds every handler over it.
package orders

//go:generate go run github.com/idemkit/idem/cmd/idemgen -f ../idem.yaml
