// Package orders holds the guarded consumers of the shop example: the
// handlers idemgen generates from ../idem.yaml (the *_idem.go files, never
// edited) and the apply functions that perform each effect (the *_apply.go
// files, written once by idemgen as stubs and then filled in by hand).
//
// A Shop holds what the apply functions need (the database's tables and
// dialect, the SMS provider); its methods build the handlers.
package orders

//go:generate go run github.com/idemkit/idem/cmd/idemgen -f ../idem.yaml
