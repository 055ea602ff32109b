package sqlclass

import (
	"slices"
	"strings"
)

// Key is a unique key of a table as its schema declares it: a second row
// with the same values in Columns violates it.
type Key struct {
	Name    string   // the constraint's or the index's name, lowercased; "" if none
	Columns []string // lowercased
	// Primary: the table's PRIMARY KEY.
	Primary bool
	// Generated: a column of the key is filled by the database (SERIAL,
	// GENERATED … AS IDENTITY, AUTO_INCREMENT, a DEFAULT of a uuid or clock
	// function): a new row gets a new value, so the key tells no repeat.
	Generated bool
}

// Schema holds the unique keys of tables, by table name (lowercased,
// without schema), as declared by DDL read in order (ReadDDL).
type Schema map[string][]Key

// generators are the functions whose DEFAULT gives every new row a new
// value.
var generators = []string{"gen_random_uuid", "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4",
	"uuid_generate_v7", "uuidv4", "uuidv7", "gen_ulid", "generate_ulid", "ulid", "uuid", "newid", "now",
	"current_timestamp", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "localtimestamp",
	"nextval", "random", "unixepoch", "datetime"}

// ReadDDL adds to sc what the statements of ddl declare: CREATE TABLE
// (column PRIMARY KEY or UNIQUE, table PRIMARY KEY (…) or UNIQUE (…)),
// CREATE UNIQUE INDEX (not a partial one: WHERE), ALTER TABLE … ADD
// [CONSTRAINT n] UNIQUE|PRIMARY KEY (…); and what they remove: DROP TABLE,
// DROP INDEX, ALTER TABLE … DROP CONSTRAINT. Other statements are skipped.
// A key on an expression (lower(email)) is not recorded.
func (sc Schema) ReadDDL(ddl string) {
	for _, s := range splitTop(tokenize(ddl), ";") {
		switch {
		case len(s) > 2 && s[0].is("create"):
			sc.create(s)
		case len(s) > 2 && s[0].is("alter") && s[1].is("table"):
			sc.alter(s)
		case len(s) > 2 && s[0].is("rename") && s[1].is("table"):
			sc.rename(s[2:])
		case len(s) > 2 && s[0].is("drop") && s[1].is("table"):
			for _, t := range namesAfter(s, 2) {
				delete(sc, t)
			}
		case len(s) > 2 && s[0].is("drop") && s[1].is("index"):
			for _, n := range namesAfter(s, 2) {
				sc.dropNamed("", n)
			}
		}
	}
}

// skipWords returns the index of the first token from i that is none of
// words.
func skipWords(s []tok, i int, words ...string) int {
	for i < len(s) && s[i].is(words...) {
		i++
	}
	return i
}

// nameAt reads a possibly qualified name at i: its last part, and the index
// after it.
func nameAt(s []tok, i int) (string, int) {
	name := ""
	for i < len(s) && s[i].ident() {
		name = s[i].s
		i++
		if i < len(s) && s[i].op(".") {
			i++
			continue
		}
		break
	}
	return name, i
}

// namesAfter reads the comma-separated names of a DROP statement from i
// (after IF EXISTS / CONCURRENTLY).
func namesAfter(s []tok, i int) []string {
	i = skipWords(s, i, "if", "exists", "concurrently")
	var out []string
	for i < len(s) {
		n, j := nameAt(s, i)
		if n == "" || n == "cascade" || n == "restrict" {
			break
		}
		out = append(out, n)
		if j >= len(s) || !s[j].op(",") {
			break
		}
		i = j + 1
	}
	return out
}

// create reads CREATE [TEMP] TABLE and CREATE UNIQUE INDEX.
func (sc Schema) create(s []tok) {
	i := skipWords(s, 1, "or", "replace", "temp", "temporary", "unlogged", "global", "local")
	switch {
	case i < len(s) && s[i].is("table"):
		i = skipWords(s, i+1, "if", "not", "exists")
		table, j := nameAt(s, i)
		if table == "" || j >= len(s) || !s[j].op("(") {
			return // CREATE TABLE … AS SELECT, or unreadable
		}
		delete(sc, table)
		end := groupEnd(s, j)
		sc.tableItems(table, s[j+1:end])
		if end > j {
			sc.replacingKey(table, s[end+1:])
		}
	case i < len(s) && s[i].is("unique"):
		i = skipWords(s, i+1, "index", "concurrently", "if", "not", "exists")
		name := ""
		if i < len(s) && !s[i].is("on") {
			name, i = nameAt(s, i)
		}
		if i >= len(s) || !s[i].is("on") {
			return
		}
		table, j := nameAt(s, skipWords(s, i+1, "only"))
		if j < len(s) && s[j].is("using") {
			j += 2
		}
		cols, end, ok := columnList(s, j)
		if !ok || table == "" || findTop(s, end, "where") >= 0 {
			return // an expression, or a partial index
		}
		sc[table] = append(sc[table], Key{Name: name, Columns: cols})
	}
}

// alter reads ALTER TABLE t ADD [CONSTRAINT n] UNIQUE|PRIMARY KEY (…) and
// ALTER TABLE t DROP CONSTRAINT n.
func (sc Schema) alter(s []tok) {
	table, i := nameAt(s, skipWords(s, 2, "if", "exists", "only"))
	if table == "" || i >= len(s) {
		return
	}
	switch {
	case s[i].is("rename") && i+2 < len(s) && s[i+1].is("to"):
		to, _ := nameAt(s, i+2)
		sc.move(table, to)
	case s[i].is("add"):
		if k, ok := constraintAt(s, i+1); ok {
			sc[table] = append(sc[table], k)
		}
	case s[i].is("drop") && i+1 < len(s) && s[i+1].is("constraint"):
		for _, n := range namesAfter(s, i+2) {
			sc.dropNamed(table, n)
		}
	}
}

// replacingKey reads the clauses after a CREATE TABLE's columns (tail):
// a ClickHouse ReplacingMergeTree keeps one row per value of its sorting
// key (ORDER BY (a, b)), so that key is a unique key of the table once
// its parts merge.
func (sc Schema) replacingKey(table string, tail []tok) {
	i := findTop(tail, 0, "engine")
	if i < 0 || i+2 >= len(tail) || !tail[i+1].op("=") || !strings.HasSuffix(tail[i+2].s, "replacingmergetree") {
		return
	}
	for j := i + 3; j+2 < len(tail); j++ {
		if !tail[j].is("order") || !tail[j+1].is("by") {
			continue
		}
		cols, _, ok := columnList(tail, j+2)
		if !ok && tail[j+2].ident() {
			cols, ok = []string{tail[j+2].s}, true
		}
		if ok {
			sc[table] = append(sc[table], Key{Columns: cols})
		}
		return
	}
}

// rename reads RENAME TABLE a TO b [, c TO d] (s after RENAME TABLE).
func (sc Schema) rename(s []tok) {
	for _, pair := range splitTop(s, ",") {
		from, i := nameAt(pair, 0)
		if i+1 < len(pair) && pair[i].is("to") {
			to, _ := nameAt(pair, i+1)
			sc.move(from, to)
		}
	}
}

// move gives table to the keys of table from, as a rename does.
func (sc Schema) move(from, to string) {
	if from == "" || to == "" {
		return
	}
	keys, ok := sc[from]
	delete(sc, from)
	delete(sc, to)
	if ok {
		sc[to] = keys
	}
}

// dropNamed removes the key called name (of table, or of any table when
// table is "").
func (sc Schema) dropNamed(table, name string) {
	for t, keys := range sc {
		if table != "" && t != table {
			continue
		}
		sc[t] = slices.DeleteFunc(keys, func(k Key) bool { return k.Name == name })
	}
}

// constraintAt reads [CONSTRAINT n] PRIMARY KEY (…) or UNIQUE [KEY|INDEX]
// [n] (…) at i.
func constraintAt(s []tok, i int) (Key, bool) {
	var k Key
	if i < len(s) && s[i].is("constraint") {
		k.Name, i = nameAt(s, i+1)
	}
	switch {
	case i+1 < len(s) && s[i].is("primary") && s[i+1].is("key"):
		k.Primary = true
		i += 2
	case i < len(s) && s[i].is("unique"):
		i = skipWords(s, i+1, "key", "index", "nulls", "not", "distinct")
		if i < len(s) && s[i].ident() {
			k.Name, i = nameAt(s, i) // MySQL: UNIQUE KEY name (…)
		}
	default:
		return k, false
	}
	cols, _, ok := columnList(s, i)
	k.Columns = cols
	return k, ok
}

// columnList reads (a, b DESC, c) at i: plain column names only. It
// returns the index after the closing parenthesis.
func columnList(s []tok, i int) ([]string, int, bool) {
	if i >= len(s) || !s[i].op("(") {
		return nil, i, false
	}
	var cols []string
	expect := true
	for i++; i < len(s); i++ {
		t := s[i]
		switch {
		case t.op(")"):
			return cols, i + 1, len(cols) > 0
		case t.op(","):
			expect = true
		case expect && t.ident():
			cols = append(cols, t.s)
			expect = false
		case !expect && t.is("asc", "desc", "nulls", "first", "last", "collate") || t.kind == tQuoted && !expect:
		default:
			return nil, i, false // an expression, an operator class, a length
		}
	}
	return nil, i, false
}

// tableItems reads the items of CREATE TABLE t ( … ) (s, inside the
// parentheses): columns with their
// PRIMARY KEY, UNIQUE and generated values, and table constraints.
func (sc Schema) tableItems(table string, s []tok) {
	generated := map[string]bool{}
	var keys []Key
	for _, item := range splitTop(s, ",") {
		if len(item) == 0 {
			continue
		}
		if k, ok := constraintAt(item, 0); ok {
			keys = append(keys, k)
		} else if !item[0].is("constraint", "check", "foreign", "exclude", "key", "index", "fulltext", "spatial", "like") && item[0].ident() {
			col := item[0].s
			if columnGenerated(item[1:]) {
				generated[col] = true
			}
			for j := 1; j < len(item); j++ {
				switch {
				case item[j].is("primary") && j+1 < len(item) && item[j+1].is("key"):
					keys = append(keys, Key{Columns: []string{col}, Primary: true})
				case item[j].is("unique"):
					keys = append(keys, Key{Columns: []string{col}})
				}
			}
		}
	}
	for i := range keys {
		keys[i].Generated = slices.ContainsFunc(keys[i].Columns, func(c string) bool { return generated[c] })
	}
	sc[table] = keys
}

// columnGenerated reports whether a column definition (after its name)
// makes the database fill it with a new value: a serial type, IDENTITY,
// AUTO_INCREMENT, or a DEFAULT calling a generator.
func columnGenerated(def []tok) bool {
	for j, t := range def {
		switch {
		case j == 0 && t.is("serial", "bigserial", "smallserial", "serial2", "serial4", "serial8"):
			return true
		case t.is("identity", "auto_increment", "autoincrement"):
			return true
		case t.is("default") && j+1 < len(def):
			n := def[j+1]
			if n.op("(") && j+2 < len(def) {
				n = def[j+2]
			}
			if n.is(generators...) {
				return true
			}
		}
	}
	return false
}

// Natural reports whether an insert into table writing cols sets every
// column of a natural key of the table: a key no column of which the
// database generates, made of two columns or more or declared UNIQUE on a
// column other than id (a single-column primary key, or an id, is usually a
// surrogate the program fills with a fresh value). A second insert of the
// same row then violates the key instead of adding a row.
func (sc Schema) Natural(table string, cols []string) bool {
	for _, k := range sc[table] {
		if k.Generated || len(k.Columns) == 1 && (k.Primary || k.Columns[0] == "id") {
			continue
		}
		if !slices.ContainsFunc(k.Columns, func(c string) bool { return !slices.Contains(cols, c) }) {
			return true
		}
	}
	return false
}
