package spec

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of spec version 1, the same
// bytes as idem.schema.json in this folder. Point yaml-language-server at it
// for completion and checks in editors:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/idemkit/idem/main/spec/idem.schema.json
//
// The schema checks each setting on its own and the rules between settings
// that JSON Schema can express; Parse checks everything (see the package
// documentation for what only Parse catches). Do not modify the slice.
//
//go:embed idem.schema.json
var Schema []byte
