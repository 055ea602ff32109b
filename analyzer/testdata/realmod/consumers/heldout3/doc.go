// Package heldout3 is the third held-out set of consumer handlers for
// idemlint, labelled by the semantics of idemlint's documentation before the linter was run on
// them. Each labelled handler carries exactly one label line in its doc
// comment; helpers carry none.
package heldout3
