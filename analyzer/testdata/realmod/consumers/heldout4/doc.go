// Package heldout4 is the fourth held-out set of consumer handlers, written
// and labelled from idemlint's documentation and a reviewer's judgement of redelivery and
// crash behaviour, before idemlint was run on it. Styles follow real services:
// event-sourcing projections with checkpoints, saga steps, ledgers, Redis
// leaderboards and feeds, notification fan-out, webhook relays, cache
// invalidation and search indexing.
package heldout4
