package analyzer

import (
	"maps"
	"testing"
)

// TestNamedQueriesParse checks how a .sql file's named statements are
// read: each "-- name:" line (with or without the space) names the lines
// after it up to the next one, comment lines left out; a name with no
// statement is dropped.
func TestNamedQueriesParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string
	}{
		{"none", "CREATE TABLE t (id int);\n", map[string]string{}},
		{"two", "-- name: a\n-- a comment\nSELECT 1;\n\n--name: b-c\nUPDATE t\nSET x = 1;\n",
			map[string]string{"a": "SELECT 1;", "b-c": "UPDATE t\nSET x = 1;"}},
		{"empty", "-- name: a\n-- only a comment\n-- name: b\nDELETE FROM t;", map[string]string{"b": "DELETE FROM t;"}},
	} {
		if got := namedQueries(tc.text); !maps.Equal(got, tc.want) {
			t.Errorf("%s: namedQueries = %q, want %q", tc.name, got, tc.want)
		}
	}
}
