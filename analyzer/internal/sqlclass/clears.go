package sqlclass

import "slices"

// Clear is a statement that removes the rows a later insert into the same
// table writes again: TRUNCATE t and DELETE FROM t (every row), or DELETE
// FROM t WHERE k = $1 [AND …] (the rows of one key). An insert that comes
// after it on every path replaces rows rather than adds them — a snapshot
// reloaded, the rows of a key rewritten — so a repeat leaves the same
// rows.
type Clear struct {
	Table string   // lowercased, without schema
	Keys  []string // the columns the DELETE holds equal to a parameter; nil: every row
}

// Covers reports whether an insert into table of the columns cols writes
// only rows c removed first: c is of the same table and every column c
// selects rows by is among cols. An insert without a column list (cols
// nil) is covered only by a clear of every row.
func (c Clear) Covers(table string, cols []string) bool {
	if table == "" || c.Table != table {
		return false
	}
	for _, k := range c.Keys {
		if !slices.Contains(cols, k) {
			return false
		}
	}
	return true
}

// truncated returns the tables of TRUNCATE [TABLE] [ONLY] a [*], b … .
func truncated(s []tok) []Clear {
	var out []Clear
	for i := 1; i < len(s); i++ {
		switch {
		case s[i].is("table", "only") || s[i].op(",") || s[i].op("*"):
		case s[i].is("restart", "continue", "identity", "cascade", "restrict"):
			return out
		case s[i].ident():
			out = append(out, Clear{Table: qualifiedName(s, i)})
			i = skipName(s, i) - 1
		default:
			return out
		}
	}
	return out
}

// deleted returns what DELETE FROM t [WHERE …] removes: every row without
// a WHERE; the rows of a key when the WHERE is a conjunction of
// `column = parameter`; nothing it can name otherwise (DELETE … WHERE
// created_at < now() is a cleanup, not a clear).
func deleted(s []tok, table string) []Clear {
	w := findTop(s, 0, "where")
	if w < 0 {
		if findTop(s, 0, "using") >= 0 {
			return nil
		}
		return []Clear{{Table: table}}
	}
	end := len(s)
	if r := findTop(s, w, "returning"); r >= 0 {
		end = r
	}
	var keys []string
	for i := w + 1; i < end; {
		j := i
		col := ""
		for j < end && s[j].ident() {
			col = s[j].s // alias.column: the column
			if j+1 < end && s[j+1].op(".") {
				j += 2
				continue
			}
			j++
			break
		}
		if col == "" || j+1 >= end || !s[j].op("=") || s[j+1].kind != tParam {
			return nil
		}
		keys = append(keys, col)
		i = j + 2
		if i < end {
			if !s[i].is("and") {
				return nil
			}
			i++
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return []Clear{{Table: table, Keys: keys}}
}

// insertColumns returns the column list of INSERT INTO t (a, b) …, from
// the token after the table name; nil when there is none.
func insertColumns(s []tok, i int) []string {
	if i >= len(s) || !s[i].op("(") {
		return nil
	}
	e := groupEnd(s, i)
	var cols []string
	for j := i + 1; j < e; j++ {
		if s[j].ident() && (j+1 == e || s[j+1].op(",")) {
			cols = append(cols, s[j].s)
		}
	}
	return cols
}

// replaces reports whether one of clears covers an insert into table of
// cols.
func replaces(clears []Clear, table string, cols []string) bool {
	for _, c := range clears {
		if c.Covers(table, cols) {
			return true
		}
	}
	return false
}
