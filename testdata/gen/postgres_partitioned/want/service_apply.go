package stats

// Service performs the effects of the spec's consumers: it implements Effects
// (handlers_idem.go) with one method per consumer, each in the consumer's
// <consumer>_apply.go. Give it the fields its effects need (a repository, an
// SMS client, a clock), and build every handler with
//
//	h := NewHandlers(Stores{SQL: store}, &Service{})
//
// then hand h.Topics() (or h.UpdateStats, …) to a broker adapter.
//
// idemgen wrote this file once and never overwrites it: it is yours to edit.
// Keep the type's name: the stub of a consumer added to the spec is a method of
// Service. (If the file is deleted, idemgen writes it again; keep it, even
// reduced to its package clause, if Service lives elsewhere.)
type Service struct{}
