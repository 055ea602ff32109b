package sqlclass

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
