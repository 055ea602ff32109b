package sqlclass

import "slices"

// ClaimTable returns the table a statement claims a job from, "" when it
// is no claim. A claim takes the next job row of the program's own job
// table and moves it on in one statement, returning it to the worker:
//
//	UPDATE jobs SET status = 'running' WHERE id = (SELECT id FROM jobs
//	  WHERE status = 'pending' ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
//	RETURNING *
//
// or a DELETE … RETURNING that pops it. The statement updates or deletes
// rows of a table picked by a subquery of that same table that takes the
// first rows (LIMIT) or locks them (FOR UPDATE), and returns them; the
// subquery may be a CTE the statement reads:
//
//	WITH next AS (SELECT id FROM jobs WHERE status = 'queued'
//	  ORDER BY run_at FOR UPDATE SKIP LOCKED LIMIT 1)
//	UPDATE jobs j SET status = 'running' FROM next WHERE j.id = next.id
//	RETURNING j.id, j.payload
func ClaimTable(q string) string {
	for _, s := range splitTop(tokenize(q), ";") {
		if t := claimStmt(s); t != "" {
			return t
		}
	}
	return ""
}

func claimStmt(s []tok) string {
	var ctes []cte
	if len(s) > 0 && s[0].is("with") {
		var ok bool
		if ctes, s, ok = withClauses(s); !ok {
			return ""
		}
	}
	if len(s) < 3 {
		return ""
	}
	var table string
	switch {
	case s[0].is("update"):
		table = qualifiedName(s, 1)
		if s[1].is("only") {
			table = qualifiedName(s, 2)
		}
	case s[0].is("delete") && s[1].is("from"):
		table = qualifiedName(s, 2)
	default:
		return ""
	}
	if table == "" {
		return ""
	}
	if findTop(s, 0, "returning") < 0 {
		return ""
	}
	for _, c := range ctes {
		if len(c.body) > 0 && c.body[0].is("select") && pickSubquery(c.body, table) && mentions(s, c.name) {
			return table
		}
	}
	for j := 0; j+1 < len(s); j++ {
		if s[j].op("(") && s[j+1].is("select") && pickSubquery(s[j+1:groupEnd(s, j)], table) {
			return table
		}
	}
	return ""
}

// pickSubquery reports whether the subquery s (from its SELECT to before
// its closing parenthesis) reads table and takes its first rows or locks
// them.
func pickSubquery(s []tok, table string) bool {
	from := findTop(s, 0, "from")
	if from < 0 || qualifiedName(s, from+1) != table {
		return false
	}
	if findTop(s, 0, "limit") >= 0 {
		return true
	}
	lock := findTop(s, 0, "for")
	return lock >= 0 && lock+1 < len(s) && s[lock+1].is("update")
}

// mentions reports whether the word name occurs in s.
func mentions(s []tok, name string) bool {
	for _, t := range s {
		if t.is(name) {
			return true
		}
	}
	return false
}

// ClaimPair returns the table that a pick and a conditional update, run one
// after the other by the same function, claim a job from; "" when they are
// no claim. Engines or programs without UPDATE … RETURNING claim in two
// statements:
//
//	SELECT id FROM jobs WHERE status = ? ORDER BY created_at LIMIT 1
//	UPDATE jobs SET status = ?, claimed_by = ? WHERE id = ? AND status = ?
//
// The pick reads the first rows of a table (LIMIT) or locks them (FOR
// UPDATE); the update moves a column the pick filters on, and, unless the
// pick locked the row, tests that column again so that one worker wins.
// A read of a free row followed by an update that marks it without that
// test (SELECT code FROM coupons WHERE used = false LIMIT 1; UPDATE coupons
// SET used = true WHERE id = ?) is no claim.
func ClaimPair(pick, update string) string {
	p := tokenize(pick)
	if len(p) < 4 || !p[0].is("select") {
		return ""
	}
	from := findTop(p, 0, "from")
	if from < 0 {
		return ""
	}
	table := qualifiedName(p, from+1)
	lock := findTop(p, 0, "for")
	locks := lock >= 0 && lock+1 < len(p) && p[lock+1].is("update")
	if table == "" || !locks && findTop(p, 0, "limit") < 0 {
		return ""
	}
	u := Classify(update)
	if !u.Write || u.Table != table || len(u.Sets) == 0 {
		return ""
	}
	picked := compared(p)
	tested := compared(tokenize(update))
	for _, col := range u.Sets {
		if slices.Contains(picked, col) && (locks || slices.Contains(tested, col)) {
			return table
		}
	}
	return ""
}

// compared returns the columns a statement's WHERE compares (col = …, col
// IS NULL, col IN …, at any depth of parentheses), lowercased without
// qualifier.
func compared(s []tok) []string {
	w := findTop(s, 0, "where")
	if w < 0 {
		return nil
	}
	end := findTop(s, w, "group", "order", "limit", "for", "returning", "union", "having", "offset")
	if end < 0 {
		end = len(s)
	}
	var out []string
	for j := w + 1; j+1 < end; j++ {
		t := s[j]
		if !t.ident() || t.is("not", "null", "true", "false", "and", "or", "is", "in", "exists", "between", "like") {
			continue
		}
		name, k := t.s, j+1
		for k+1 < end && s[k].op(".") && s[k+1].ident() {
			name, k = s[k+1].s, k+2
		}
		if k < end && (s[k].op("=") || s[k].op("<>") || s[k].op("!=") || s[k].is("is", "in")) && !slices.Contains(out, name) {
			out = append(out, name)
		}
		j = k - 1
	}
	return out
}
