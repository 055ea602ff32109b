package analyzer

var doc005 = CodeDoc{
	Code:  IDEM005,
	Title: "check-then-act dedup (-strict)",
	Text: `A check-then-act dedup (reported with -strict): a lookup of the key, then
a write of it. Two concurrent deliveries both pass the lookup. A state check
is one too: a row read, a branch on its state (` + "`" + `if o.Status == "paid"` + "`" + `) and an
UPDATE that sets that state with the effect, in separate transactions or
after the effect, leaves the same window; without -strict it counts as a
dedup check. A lookup through an ORM's generated query builder counts as
any other: ent's Query().Where(…).Exist(ctx), Only (its error tested with
IsNotFound) or Count of the table the handler then inserts into.
`,
	Bad: `err := tx.QueryRowContext(ctx, ` + "`" + `SELECT 1 FROM processed WHERE id = $1` + "`" + `, id).Scan(&one)
if err == nil {
	return nil
}
if !errors.Is(err, sql.ErrNoRows) {
	return err
}
tx.ExecContext(ctx, ` + "`" + `INSERT INTO processed (id) VALUES ($1)` + "`" + `, id)
`,
	Good: `res, err := tx.ExecContext(ctx, ` + "`" + `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING` + "`" + `, id)
if n, _ := res.RowsAffected(); n == 0 {
	return nil
}
`,
}

// checkThenAct reports, with -strict, an effect guarded by a lookup of its
// key (a read whose result decides, then a write of the key): two
// concurrent deliveries both pass the lookup.
func (a *pkgAnalysis) checkThenAct(o *occ, name string) {
	if !a.cfg.strict || o.guardedBy.kind != ckLookup {
		return
	}
	c := o.guardedBy
	a.report(IDEM005, c.pos, name, o.pos, "the effect", "check-then-act dedup %s in handler %s is racy: a concurrent redelivery passes the lookup too before %s records the key; claim the key atomically (INSERT … ON CONFLICT DO NOTHING, SET NX)", c.desc, name, o.desc)
}
