// Package sqlclass classifies SQL text for idemlint: from the constant text
// of a statement, decide whether
// it writes, whether a repeat of it is harmless (naturally idempotent), and
// whether it can serve as a dedup check (its rows-affected tells a fresh key
// from a duplicate). The three dialects of the project are understood:
// PostgreSQL ($1, ON CONFLICT, RETURNING), MySQL/MariaDB (?, INSERT IGNORE,
// ON DUPLICATE KEY UPDATE, VALUES(col)), SQLite (?, INSERT OR IGNORE/REPLACE).
//
// It is a tokenizer and a few rules, not a parser; what it cannot read is
// treated the safe way: an Exec of unknown text is a non-idempotent write.
package sqlclass

import (
	"slices"
	"strings"
	"unicode"
)

// DedupKind is how a statement can tell a fresh key from a duplicate.
type DedupKind uint8

const (
	DedupNone          DedupKind = iota
	DedupInsertNothing           // INSERT … ON CONFLICT DO NOTHING / INSERT IGNORE / OR IGNORE / WHERE NOT EXISTS
	DedupCondUpdate              // UPDATE … SET s = … WHERE s = … (state or version transition)
	DedupDelete                  // DELETE … WHERE …: a claim by deletion
)

// Class is the classification of one statement (or of several, merged).
type Class struct {
	Known      bool      // the text was available
	Write      bool      // changes data
	Idempotent bool      // a repeat leaves the same state (meaningful when Write)
	Insert     bool      // a plain INSERT: a unique violation on repeat
	Lookup     bool      // a SELECT
	Returning  bool      // RETURNING clause (or a SELECT): rows tell the outcome
	Dedup      DedupKind // how it can serve as a dedup check
	Table      string    // target table, lowercased, without schema
	Sets       []string  // UPDATE: the columns SET assigns, lowercased
	Reason     string    // why it is not idempotent, for messages
	// Function: the function a SELECT without FROM calls as its first item
	// (SELECT sda.set_verified($1, $2)), lower-cased with its schema; a
	// program that executes such a statement rather than querying it runs
	// a stored function for its effects. Empty for builtins (pg_*, nextval
	// …) and other statements.
	Function string
	// Clears: the rows the statement removes so that a later insert can
	// write them again (TRUNCATE, DELETE FROM t, DELETE … WHERE k = $1).
	Clears []Clear
	// Columns: an INSERT's column list, lowercased; nil without one.
	Columns []string
	// Sources: the table an INSERT … SELECT copies its rows from
	// (lowercased, without schema); a later DELETE of that table's rows
	// makes the copy a move.
	Sources []string
	// Deletes: the tables a DELETE removes rows from, whatever its WHERE.
	Deletes []string
	// Updates: every UPDATE of a text of several statements or of a
	// writing CTE (WITH t AS (UPDATE orders SET status = … RETURNING …)
	// INSERT INTO history …), whose table and columns Table and Sets
	// cannot all hold.
	Updates []Update
}

// Update is an UPDATE's table and the columns its SET assigns.
type Update struct {
	Table string
	Sets  []string
}

// Effect reports whether the statement is a non-idempotent write.
func (c Class) Effect() bool { return c.Write && !c.Idempotent }

type tokKind uint8

const (
	tWord   tokKind = iota + 1 // keyword or identifier (lowercased, unquoted)
	tQuoted                    // quoted identifier (lowercased, unquoted)
	tString                    // string literal
	tNumber
	tParam // $1, ?, :name, @name
	tOp    // punctuation and operators
)

type tok struct {
	kind tokKind
	s    string
}

func (t tok) is(words ...string) bool {
	if t.kind != tWord {
		return false
	}
	for _, w := range words {
		if t.s == w {
			return true
		}
	}
	return false
}

func (t tok) ident() bool { return t.kind == tWord || t.kind == tQuoted }

func (t tok) op(s string) bool { return t.kind == tOp && t.s == s }

// tokenize splits SQL text into tokens, dropping comments.
func tokenize(q string) []tok {
	var out []tok
	r := []rune(q)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-', c == '#':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			i += 2
			for i+1 < len(r) && !(r[i] == '*' && r[i+1] == '/') {
				i++
			}
			i += 2
		case c == '\'':
			j := i + 1
			for j < len(r) {
				if r[j] == '\'' {
					if j+1 < len(r) && r[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				if r[j] == '\\' {
					j++
				}
				j++
			}
			lit := string(r[min(i+1, len(r)):min(j, len(r))])
			out = append(out, tok{tString, strings.ReplaceAll(lit, "''", "'")})
			i = j + 1
		case c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for j < len(r) && r[j] != end {
				j++
			}
			out = append(out, tok{tQuoted, strings.ToLower(string(r[i+1 : min(j, len(r))]))})
			i = j + 1
		case c == '$' && i+1 < len(r) && unicode.IsDigit(r[i+1]):
			j := i + 1
			for j < len(r) && unicode.IsDigit(r[j]) {
				j++
			}
			out = append(out, tok{tParam, string(r[i:j])})
			i = j
		case c == '?':
			out = append(out, tok{tParam, "?"})
			i++
		case (c == ':' || c == '@') && i+1 < len(r) && (unicode.IsLetter(r[i+1]) || r[i+1] == '_') && !(i > 0 && r[i-1] == ':'):
			j := i + 1
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_') {
				j++
			}
			out = append(out, tok{tParam, string(r[i:j])})
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			out = append(out, tok{tWord, strings.ToLower(string(r[i:j]))})
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(r) && (unicode.IsDigit(r[j]) || r[j] == '.' || r[j] == 'e' || r[j] == 'E') {
				j++
			}
			out = append(out, tok{tNumber, string(r[i:j])})
			i = j
		default:
			two := ""
			if i+1 < len(r) {
				two = string(r[i : i+2])
			}
			switch two {
			case "<>", "!=", ">=", "<=", "||", "::", "->", "#>", "@>", "<@", "+=", "-=":
				out = append(out, tok{tOp, two})
				i += 2
				continue
			}
			out = append(out, tok{tOp, string(c)})
			i++
		}
	}
	return out
}

// Classify classifies statement text. Several statements separated by
// semicolons are merged: the result is an effect when any of them is.
func Classify(q string) Class {
	var res Class
	first := true
	for _, s := range splitTop(tokenize(q), ";") {
		if len(s) == 0 {
			continue
		}
		c := classifyStmt(s)
		if c.Insert && replaces(res.Clears, c.Table, c.Columns) {
			// DELETE FROM t WHERE k = $1; INSERT INTO t (k, …): a replace.
			c.Idempotent, c.Insert, c.Reason = true, false, ""
		}
		if first {
			res, first = c, false
			continue
		}
		res = Merge(res, c)
	}
	if first { // empty text
		return Class{Known: true}
	}
	res.Known = true
	return res
}

func Merge(a, b Class) Class {
	r := a
	r.Write = a.Write || b.Write
	r.Lookup = a.Lookup || b.Lookup
	r.Insert = a.Insert || b.Insert
	r.Returning = a.Returning || b.Returning
	switch {
	case a.Write && b.Write:
		r.Idempotent = a.Idempotent && b.Idempotent
	case b.Write:
		r.Idempotent = b.Idempotent
	}
	if a.Reason == "" {
		r.Reason = b.Reason
	}
	if a.Dedup == DedupNone {
		r.Dedup = b.Dedup
		r.Table = b.Table
	}
	if r.Table == "" {
		r.Table = b.Table
	}
	r.Clears = append(slices.Clip(a.Clears), b.Clears...)
	r.Sources = append(slices.Clip(a.Sources), b.Sources...)
	r.Deletes = append(slices.Clip(a.Deletes), b.Deletes...)
	r.Updates = append(updates(a), updates(b)...)
	if r.Columns == nil {
		r.Columns = b.Columns
	}
	return r
}

// updates returns the UPDATEs c holds: its own, and those it merged.
func updates(c Class) []Update {
	out := slices.Clip(c.Updates)
	if len(c.Sets) > 0 && !slices.ContainsFunc(out, func(u Update) bool { return u.Table == c.Table }) {
		out = append(out, Update{Table: c.Table, Sets: c.Sets})
	}
	return out
}

// groupEnd returns the index of the ")" closing the "(" at i.
func groupEnd(s []tok, i int) int {
	d := 0
	for j := i; j < len(s); j++ {
		switch {
		case s[j].op("("):
			d++
		case s[j].op(")"):
			d--
			if d == 0 {
				return j
			}
		}
	}
	return len(s) - 1
}

// splitTop splits s at the top-level (depth 0) occurrences of the
// punctuation sep: statements at ";", list items at ",". The last part is
// always returned, empty or not.
func splitTop(s []tok, sep string) [][]tok {
	var out [][]tok
	d, start := 0, 0
	for j, t := range s {
		switch {
		case t.op("("):
			d++
		case t.op(")"):
			d--
		case t.op(sep) && d == 0:
			out = append(out, s[start:j])
			start = j + 1
		}
	}
	return append(out, s[start:])
}

// findTop returns the index of the first top-level (depth 0) word in s[from:]
// equal to one of words, or -1.
func findTop(s []tok, from int, words ...string) int {
	d := 0
	for j := from; j < len(s); j++ {
		switch {
		case s[j].op("("):
			d++
		case s[j].op(")"):
			d--
		case d == 0 && s[j].is(words...):
			return j
		}
	}
	return -1
}

func unknownWrite(reason string) Class {
	return Class{Known: true, Write: true, Reason: reason}
}

func classifyStmt(s []tok) Class {
	for len(s) > 0 && s[0].op("(") {
		e := groupEnd(s, 0)
		s = s[1:e]
	}
	if len(s) == 0 {
		return Class{Known: true}
	}
	switch {
	case s[0].is("with"):
		return classifyWith(s)
	case s[0].is("select", "show", "explain", "describe", "desc", "values", "table", "pragma"):
		c := Class{Known: true, Lookup: s[0].is("select", "values", "table"), Returning: true}
		if s[0].is("select") && findTop(s, 0, "from") < 0 {
			c.Function = calledFunction(s[1:])
		}
		return c
	case s[0].is("insert", "replace", "upsert"):
		return classifyInsert(s)
	case s[0].is("update"):
		return classifyUpdate(s)
	case s[0].is("delete"):
		c := Class{Known: true, Write: true, Idempotent: true, Table: tableAfter(s, "from")}
		c.Clears = deleted(s, c.Table)
		if c.Table != "" {
			c.Deletes = []string{c.Table}
		}
		if findTop(s, 0, "where") >= 0 {
			c.Dedup = DedupDelete
		}
		c.Returning = findTop(s, 0, "returning") >= 0
		return c
	case s[0].is("merge"):
		return classifyMerge(s)
	case s[0].is("truncate"):
		return Class{Known: true, Clears: truncated(s)}
	case s[0].is("create", "alter", "drop", "grant", "revoke", "comment",
		"set", "reset", "begin", "start", "commit", "rollback", "savepoint", "release",
		"lock", "unlock", "vacuum", "analyze", "listen", "unlisten", "use", "prepare",
		"deallocate", "discard", "checkpoint", "reindex", "cluster", "refresh"):
		return Class{Known: true}
	}
	return unknownWrite("statement " + strings.ToUpper(s[0].s) + " is not understood")
}

// cte is one common table expression of a WITH clause: name AS (body).
type cte struct {
	name string
	body []tok
}

// withClauses splits WITH a AS (…), b AS (…) <main> into its CTEs and the
// main statement (nil when there is none); ok is false when the clause is
// not understood.
func withClauses(s []tok) (ctes []cte, main []tok, ok bool) {
	i := 1
	if i < len(s) && s[i].is("recursive") {
		i++
	}
	for i < len(s) {
		// name [(cols)] AS [NOT] [MATERIALIZED] ( body )
		name := s[i].s
		i++ // name
		if i < len(s) && s[i].op("(") {
			i = groupEnd(s, i) + 1
		}
		if i < len(s) && s[i].is("as") {
			i++
		}
		for i < len(s) && s[i].is("not", "materialized") {
			i++
		}
		if i >= len(s) || !s[i].op("(") {
			return nil, nil, false
		}
		e := groupEnd(s, i)
		ctes = append(ctes, cte{name: name, body: s[i+1 : e]})
		i = e + 1
		if i < len(s) && s[i].op(",") {
			i++
			continue
		}
		break
	}
	if i < len(s) {
		main = s[i:]
	}
	return ctes, main, true
}

// classifyWith handles WITH a AS (…), b AS (…) <main>.
func classifyWith(s []tok) Class {
	ctes, rest, ok := withClauses(s)
	if !ok {
		return unknownWrite("WITH clause is not understood")
	}
	var res Class
	first := true
	add := func(c Class) {
		if first {
			res, first = c, false
		} else {
			res = Merge(res, c)
		}
	}
	deletes := map[string]bool{} // CTEs that delete rows and return them
	for _, c := range ctes {
		add(classifyStmt(c.body))
		if len(c.body) > 0 && c.body[0].is("delete") && findTop(c.body, 0, "returning") >= 0 {
			deletes[c.name] = true
		}
	}
	if rest != nil {
		main := classifyStmt(rest)
		if main.Insert && len(main.Sources) == 1 && deletes[main.Sources[0]] {
			// WITH moved AS (DELETE FROM a … RETURNING *) INSERT INTO b
			// SELECT * FROM moved: a move; a repeat finds nothing to move.
			m := Merge(main, res)
			m.Idempotent, m.Insert, m.Reason, m.Lookup = true, false, "", false
			m.Dedup, m.Table = main.Dedup, main.Table
			return m
		}
		if res.Write {
			// A writing CTE: the main statement's table and dedup role are
			// those of the CTE only when the main statement does not write.
			m := Merge(main, res)
			m.Lookup = main.Lookup && !res.Write
			m.Dedup, m.Table = main.Dedup, main.Table
			return m
		}
		main.Lookup = main.Lookup || res.Lookup
		return main
	}
	return res
}

// tableAfter returns the name following the first top-level keyword kw.
func tableAfter(s []tok, kw string) string {
	i := findTop(s, 0, kw)
	if i < 0 || i+1 >= len(s) {
		return ""
	}
	return qualifiedName(s, i+1)
}

// qualifiedName reads schema.table at i and returns the last part.
func qualifiedName(s []tok, i int) string {
	name := ""
	for i < len(s) && s[i].ident() {
		name = s[i].s
		if i+1 < len(s) && s[i+1].op(".") {
			i += 2
			continue
		}
		break
	}
	return name
}

// Unknown stands in a statement's text for what the program fills in at
// run time (a Sprintf verb, a replaced placeholder): callers write it where
// the text is not a constant, and it reads as an identifier.
const Unknown = "_fmt_"

// calledFunction returns the name (schema.name, lower-cased) of the
// function s starts by calling, "" when s does not start with a call,
// calls a builtin, or calls a function whose name is filled in at run time
// (SELECT %s($1)): a name taken from configuration is a library's own
// function, not one the program names for a business effect.
func calledFunction(s []tok) string {
	end := skipName(s, 0)
	if end == 0 || end >= len(s) || !s[end].op("(") {
		return ""
	}
	var parts []string
	for i := 0; i < end; i++ {
		if s[i].ident() {
			if s[i].s == Unknown {
				return ""
			}
			parts = append(parts, strings.ToLower(s[i].s))
		}
	}
	name := strings.Join(parts, ".")
	base := parts[len(parts)-1]
	for _, b := range builtinPrefixes {
		if strings.HasPrefix(base, b) {
			return ""
		}
	}
	return name
}

// builtinPrefixes name the database functions a program may execute for
// their session effect or value, not as a business effect: locks, session
// settings, sequences, notifications, clocks.
var builtinPrefixes = []string{"pg_", "set_config", "nextval", "setval", "currval", "lastval", "now", "current_",
	"get_lock", "release_lock", "sleep", "version", "last_insert_id", "txid_", "lo_"}

// skipName returns the index after schema.table at i.
func skipName(s []tok, i int) int {
	for i < len(s) && s[i].ident() {
		if i+1 < len(s) && s[i+1].op(".") {
			i += 2
			continue
		}
		return i + 1
	}
	return i
}

var sqlKeywordsAfterTable = map[string]bool{
	"set": true, "where": true, "values": true, "select": true, "default": true,
	"on": true, "returning": true, "from": true, "using": true, "join": true,
	"inner": true, "left": true, "right": true, "partition": true, "overriding": true,
	"as": true, "output": true, "when": true,
}

func classifyInsert(s []tok) Class {
	c := Class{Known: true, Write: true}
	i := 1
	replace := s[0].is("replace")
	ignore := false
	// INSERT [LOW_PRIORITY|DELAYED|HIGH_PRIORITY] [IGNORE] [OR IGNORE|REPLACE|…] INTO
	for i < len(s) && !s[i].is("into") && !s[i].op("(") && i < 5 {
		switch {
		case s[i].is("ignore"):
			ignore = true
		case s[i].is("replace"):
			replace = true
		}
		i++
	}
	if i < len(s) && s[i].is("into") {
		i++
	}
	c.Table = qualifiedName(s, i)
	i = skipName(s, i)
	alias := ""
	if i < len(s) && s[i].is("as") && i+1 < len(s) && s[i+1].ident() {
		alias = s[i+1].s
		i += 2
	} else if i < len(s) && s[i].kind == tWord && !sqlKeywordsAfterTable[s[i].s] {
		alias = s[i].s
		i++
	}
	c.Columns = insertColumns(s, i)
	c.Returning = findTop(s, 0, "returning") >= 0
	if sel := findTop(s, i, "select"); sel >= 0 {
		if t := tableAfter(s[sel:], "from"); t != "" {
			c.Sources = []string{t}
		}
	}
	switch {
	case ignore:
		c.Idempotent, c.Dedup = true, DedupInsertNothing
		return c
	case replace:
		c.Idempotent = true
		return c
	}
	// MySQL 8: INSERT … VALUES (…) AS new ON DUPLICATE KEY UPDATE n = new.n
	newAlias := ""
	if v := findTop(s, i, "values"); v >= 0 {
		j := v + 1
		for j < len(s) && s[j].op("(") {
			j = groupEnd(s, j) + 1
			if j < len(s) && s[j].op(",") {
				j++
			}
		}
		if j+1 < len(s) && s[j].is("as") && s[j+1].ident() {
			newAlias = s[j+1].s
		}
	}
	if on := findConflict(s, i); on >= 0 {
		j := on + 2 // after ON CONFLICT
		if j < len(s) && s[j].op("(") {
			j = groupEnd(s, j) + 1
		}
		if j+2 < len(s) && s[j].is("on") && s[j+1].is("constraint") {
			j += 3
		}
		if j < len(s) && s[j].is("where") { // partial index predicate
			for j < len(s) && !s[j].is("do") {
				j++
			}
		}
		if j+1 < len(s) && s[j].is("do") && s[j+1].is("nothing") {
			c.Idempotent, c.Dedup = true, DedupInsertNothing
			return c
		}
		if j+2 < len(s) && s[j].is("do") && s[j+1].is("update") && s[j+2].is("set") {
			names := map[string]bool{c.Table: true}
			if alias != "" {
				names[alias] = true
			}
			body := s[j+3:]
			// DO UPDATE SET pos = EXCLUDED.pos WHERE t.pos < EXCLUDED.pos: a
			// row moved only forward, whose rows affected tell a repeat.
			if w := findTop(body, 0, "where"); w >= 0 {
				setCols := map[string]bool{}
				for _, a := range splitAssignments(body[:w]) {
					setCols[a.col] = true
				}
				if guardedByCompare(body[w+1:], setCols) {
					c.Idempotent, c.Dedup = true, DedupCondUpdate
					return c
				}
			}
			acc, reason := accumulates(body, names, map[string]bool{"excluded": true})
			c.Idempotent = !acc
			c.Reason = reason
			return c
		}
		return unknownWrite("ON CONFLICT clause is not understood")
	}
	if d := findTop(s, i, "duplicate"); d >= 2 && s[d-1].is("on") && d+2 < len(s) && s[d+1].is("key") && s[d+2].is("update") {
		newRows := map[string]bool{}
		if newAlias != "" {
			newRows[newAlias] = true
		}
		names := map[string]bool{c.Table: true}
		if alias != "" {
			names[alias] = true
		}
		asg := s[d+3:]
		if allSelfAssign(asg) {
			// ON DUPLICATE KEY UPDATE id = id: a no-op on conflict, the
			// MySQL spelling of DO NOTHING.
			c.Idempotent, c.Dedup = true, DedupInsertNothing
			return c
		}
		acc, reason := accumulates(asg, names, newRows)
		c.Idempotent = !acc
		c.Reason = reason
		return c
	}
	if w := findTop(s, i, "where"); w >= 0 && w+2 < len(s) && s[w+1].is("not") && s[w+2].is("exists") {
		c.Idempotent, c.Dedup = true, DedupInsertNothing
		return c
	}
	if findTop(s, i, "select") >= 0 && findTop(s, i, "except") >= 0 {
		c.Idempotent, c.Dedup = true, DedupInsertNothing
		return c
	}
	c.Insert = true
	c.Reason = "INSERT without conflict handling adds a row on every delivery"
	return c
}

// findConflict returns the index of a top-level ON CONFLICT, or -1.
func findConflict(s []tok, from int) int {
	for {
		j := findTop(s, from, "conflict")
		if j < 0 {
			return -1
		}
		if j > 0 && s[j-1].is("on") {
			return j - 1
		}
		from = j + 1
	}
}

// allSelfAssign reports whether every assignment in s is "col = col".
func allSelfAssign(s []tok) bool {
	asg := splitAssignments(s)
	if len(asg) == 0 {
		return false
	}
	for _, a := range asg {
		if len(a.rhs) != 1 || !a.rhs[0].ident() || a.rhs[0].s != a.col {
			return false
		}
	}
	return true
}

type assignment struct {
	col string
	rhs []tok
}

// splitAssignments reads "a = x, b = y" up to a top-level WHERE, FROM,
// RETURNING, ORDER, LIMIT or the end.
func splitAssignments(s []tok) []assignment {
	end := len(s)
	if j := findTop(s, 0, "where", "from", "returning", "order", "limit", "output"); j >= 0 {
		end = j
	}
	s = s[:end]
	var out []assignment
	for _, part := range splitTop(s, ",") {
		for k, t := range part {
			if t.op("=") && k > 0 {
				out = append(out, assignment{col: part[k-1].s, rhs: part[k+1:]})
				break
			}
		}
	}
	return out
}

// Functions that add to their first argument rather than replace it.
var accumulatingFuncs = map[string]bool{
	"array_append": true, "array_prepend": true, "array_cat": true, "concat": true,
	"concat_ws": true, "jsonb_insert": true, "json_array_append": true,
	"json_array_insert": true, "json_merge_preserve": true, "json_merge": true,
	"array_cat_agg": true, "json_insert": true,
}

// accumulates reports whether any assignment in s computes a column from its
// own old value with arithmetic or an appending function. names are the
// qualifiers naming the target row; newRows the qualifiers naming the
// proposed row (EXCLUDED, a MySQL row alias), whose columns are not old values.
func accumulates(s []tok, names, newRows map[string]bool) (bool, string) {
	for _, a := range splitAssignments(s) {
		self, arith := false, false
		for k := 0; k < len(a.rhs); k++ {
			t := a.rhs[k]
			if t.kind == tOp && (t.s == "+" || t.s == "-" || t.s == "*" || t.s == "/" || t.s == "||" || t.s == "+=" || t.s == "-=") {
				arith = true
			}
			if t.kind == tWord && accumulatingFuncs[t.s] && k+1 < len(a.rhs) && a.rhs[k+1].op("(") {
				arith = true
			}
			// VALUES(col) names the proposed value (MySQL).
			if t.is("values") && k+1 < len(a.rhs) && a.rhs[k+1].op("(") {
				k = groupEnd(a.rhs, k+1)
				continue
			}
			if !t.ident() {
				continue
			}
			qualified := k+2 < len(a.rhs) && a.rhs[k+1].op(".") && a.rhs[k+2].ident()
			if qualified {
				q, col := t.s, a.rhs[k+2].s
				k += 2
				if newRows[q] {
					continue
				}
				if names[q] && col == a.col {
					self = true
				}
				continue
			}
			if t.s == a.col && !(k+1 < len(a.rhs) && a.rhs[k+1].op("(")) {
				self = true
			}
		}
		if self && arith && !jsonbMerge(a.rhs) {
			return true, "SET " + a.col + " = " + render(a.rhs) + " accumulates: every delivery adds again"
		}
	}
	return false, ""
}

// jsonbMerge reports whether rhs adds to its column only with || and names
// a JSON object of PostgreSQL's jsonb type ('{}'::jsonb, the default of
// COALESCE(attrs, '{}'::jsonb) || $1, or jsonb_build_object(…)): the
// column holds an object, and || of two jsonb objects merges their keys,
// the second's values replacing the first's, so writing the same keys again
// changes nothing. '{}' with no cast, or cast to an array type, is an
// array literal, whose || appends.
func jsonbMerge(rhs []tok) bool {
	object := false
	for k, t := range rhs {
		switch {
		case t.kind == tOp && (t.s == "+" || t.s == "-" || t.s == "*" || t.s == "/" || t.s == "+=" || t.s == "-="):
			return false
		case t.kind == tWord && accumulatingFuncs[t.s]:
			return false
		case t.kind == tString && strings.HasPrefix(strings.TrimSpace(t.s), "{") &&
			k+2 < len(rhs) && rhs[k+1].op("::") && rhs[k+2].is("jsonb"):
			object = true
		case t.is("jsonb_build_object", "jsonb_object") && k+1 < len(rhs) && rhs[k+1].op("("):
			object = true
		}
	}
	return object
}

// render prints tokens back, roughly, for messages.
func render(ts []tok) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && !(t.op(".") || t.op(")") || t.op(",") || ts[i-1].op(".") || ts[i-1].op("(")) && !(t.op("(") && ts[i-1].kind == tWord) {
			b.WriteByte(' ')
		}
		if t.kind == tString {
			b.WriteString("'" + t.s + "'")
		} else {
			b.WriteString(t.s)
		}
		if b.Len() > 40 {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}

func classifyUpdate(s []tok) Class {
	c := Class{Known: true, Write: true, Idempotent: true}
	i := 1
	for i < len(s) && s[i].is("only", "low_priority", "ignore", "or") {
		i++
	}
	if i < len(s) && s[i].is("rollback", "abort", "replace", "fail", "ignore") {
		i++
	}
	c.Table = qualifiedName(s, i)
	set := findTop(s, i, "set")
	if set < 0 {
		return unknownWrite("UPDATE without SET is not understood")
	}
	names := map[string]bool{c.Table: true}
	// Aliases and joined tables between the name and SET.
	for j := skipName(s, i); j < set; j++ {
		if s[j].ident() && !s[j].is("as", "join", "inner", "left", "right", "on", "and") {
			names[s[j].s] = true
		}
	}
	body := s[set+1:]
	asg := splitAssignments(body)
	for _, a := range asg {
		c.Sets = append(c.Sets, a.col)
	}
	c.Returning = findTop(s, 0, "returning") >= 0
	// A state or version guard: a SET column also compared in WHERE.
	if w := findTop(body, 0, "where"); w >= 0 {
		setCols := map[string]bool{}
		for _, a := range asg {
			setCols[a.col] = true
		}
		if guardedBy(body[w+1:], setCols) {
			c.Dedup = DedupCondUpdate
			return c // applies once, whatever the SET computes
		}
	}
	acc, reason := accumulates(body, names, nil)
	c.Idempotent = !acc
	c.Reason = reason
	return c
}

// guardedBy reports whether a WHERE condition compares one of cols for
// equality (=, <>, IN, IS [NOT] NULL), or orders a version-like column, so
// that the update applies once: the state or version it sets no longer
// matches the second time.
func guardedBy(w []tok, cols map[string]bool) bool {
	for k := 0; k < len(w); k++ {
		t := w[k]
		if !t.ident() {
			continue
		}
		col := t.s
		n := k + 1
		if n+1 < len(w) && w[n].op(".") && w[n+1].ident() {
			col = w[n+1].s
			n += 2
		}
		// A boolean flag the statement sets: WHERE … AND NOT counted.
		if cols[col] && k > 0 && w[k-1].is("not") && (n >= len(w) || w[n].is("and", "or") || w[n].op(")")) {
			return true
		}
		if cols[col] && k > 1 && w[k-1].op("(") && w[k-2].is("not") && n < len(w) && w[n].op(")") {
			return true // NOT (counted)
		}
		if !cols[col] || n >= len(w) {
			continue
		}
		op := w[n]
		switch {
		case op.op("="), op.op("<>"), op.op("!="), op.is("is"), op.is("in"):
			return true
		case op.is("not") && n+1 < len(w) && w[n+1].is("in"):
			return true
		case op.op("<"), op.op("<="):
			if versionLike(col) {
				return true
			}
		}
	}
	return false
}

// guardedByCompare is guardedBy for the WHERE of an upsert's DO UPDATE,
// which also compares a SET column with the proposed row's (t.pos <
// EXCLUDED.pos): the row only moves forward.
func guardedByCompare(w []tok, cols map[string]bool) bool {
	if guardedBy(w, cols) {
		return true
	}
	for k := 0; k+2 < len(w); k++ {
		if !w[k].is("excluded") || !w[k+1].op(".") || !cols[w[k+2].s] {
			continue
		}
		// EXCLUDED.col on one side of <, <=, >, >=.
		if k+3 < len(w) && (w[k+3].op("<") || w[k+3].op("<=") || w[k+3].op(">") || w[k+3].op(">=")) {
			return true
		}
		if k > 0 && (w[k-1].op("<") || w[k-1].op("<=") || w[k-1].op(">") || w[k-1].op(">=")) {
			return true
		}
	}
	return false
}

func versionLike(col string) bool {
	for _, s := range []string{"version", "revision", "seq", "offset", "lsn", "etag"} {
		if strings.Contains(col, s) {
			return true
		}
	}
	return false
}

func classifyMerge(s []tok) Class {
	c := Class{Known: true, Write: true, Idempotent: true, Table: tableAfter(s, "into")}
	matched := -1
	for j := 0; j+1 < len(s); j++ {
		if s[j].is("when") && s[j+1].is("matched") {
			matched = j
		}
	}
	if matched < 0 {
		c.Dedup = DedupInsertNothing
		return c
	}
	if u := findTop(s, 0, "set"); u >= 0 {
		names := map[string]bool{c.Table: true}
		for j := 2; j < len(s) && !s[j].is("using"); j++ {
			if s[j].ident() {
				names[s[j].s] = true
			}
		}
		acc, reason := accumulates(s[u+1:], names, nil)
		c.Idempotent = !acc
		c.Reason = reason
	}
	return c
}

// FilterColumns returns the columns a SELECT's WHERE holds to a fixed
// state, lowercased without qualifier: `message_id IS NULL`,
// `status = 'pending'`, `status IN ('created', 'pending')`, `done =
// false`, `NOT sent`, a due time `next_run_at <= $1` (or `< now()`). A worker that takes
// the rows still in that state and writes the column as it handles each
// one (SET message_id = …) handles a row once: the filter is its
// dedup. nil when the statement filters on none.
func FilterColumns(q string) []string {
	toks := tokenize(q)
	start := -1
	for j, t := range toks {
		if t.is("where") {
			start = j + 1
			break
		}
	}
	if start < 0 {
		return nil
	}
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	depth := 0
	for j := start; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.op("("):
			depth++
			continue
		case t.op(")"):
			depth--
			continue
		case depth == 0 && t.is("group", "order", "limit", "for", "returning", "union", "having", "offset"):
			return out
		case depth > 0 || !t.ident() || t.is("not", "null", "true", "false", "and", "or", "is", "in", "exists", "between", "like"):
			continue
		}
		name := t.s
		end := j + 1
		for end+1 < len(toks) && toks[end].op(".") && toks[end+1].ident() {
			name = toks[end+1].s // alias.column
			end += 2
		}
		last := end >= len(toks)
		switch {
		case j > start && toks[j-1].is("not") && (last || toks[end].is("and", "or") || toks[end].op(")") || toks[end].op(";")):
			add(name) // NOT sent
		case last:
		case toks[end].is("is") && end+1 < len(toks) && toks[end+1].is("null"):
			add(name)
		case toks[end].op("=") && end+1 < len(toks) && (toks[end+1].kind == tString || toks[end+1].kind == tNumber || toks[end+1].is("true", "false")):
			add(name)
		case toks[end].is("in") && literalList(toks, end+1):
			add(name) // status IN ('created', 'pending')
		case (toks[end].op("<=") || toks[end].op("<")) && end+1 < len(toks) && (toks[end+1].kind == tParam || toks[end+1].is("now", "current_timestamp")):
			add(name) // next_run_at <= $1: due, until the handler moves it on
		}
		j = end - 1
	}
	return out
}

// literalList reports whether toks[i:] starts with a parenthesised list of
// string and number literals: ('created', 'pending').
func literalList(toks []tok, i int) bool {
	if i >= len(toks) || !toks[i].op("(") {
		return false
	}
	n := 0
	for j := i + 1; j < len(toks); j++ {
		switch t := toks[j]; {
		case t.op(")"):
			return n > 0
		case t.op(","):
		case t.kind == tString || t.kind == tNumber:
			n++
		default:
			return false
		}
	}
	return false
}

// ConstantRow reports whether a SELECT selects one literal
// (SELECT 1 FROM inbox WHERE …): a row scanned from it holds that value
// whenever one was found.
func ConstantRow(q string) bool {
	toks := tokenize(q)
	if len(toks) < 2 || !toks[0].is("select") {
		return false
	}
	lit := toks[1].kind == tNumber || toks[1].kind == tString || toks[1].is("true")
	return lit && (len(toks) == 2 || toks[2].is("from") || toks[2].op(";"))
}

// FromTable returns the table a SELECT reads (after its first FROM),
// lowercased without schema; "" if none.
func FromTable(q string) string {
	toks := tokenize(q)
	for j := 0; j+1 < len(toks); j++ {
		if toks[j].is("from") {
			return qualifiedName(toks, j+1)
		}
	}
	return ""
}

// FirstIdent returns the first identifier of an SQL expression ("points"
// in "points + ?"), "" if none.
func FirstIdent(expr string) string {
	for _, t := range tokenize(expr) {
		if t.ident() {
			return t.s
		}
	}
	return ""
}
