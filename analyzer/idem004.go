package analyzer

import "go/token"

var doc004 = CodeDoc{
	Code:  IDEM004,
	Title: "dedup check whose result decides nothing",
	Text: `A dedup check whose result never decides a branch: the effect after it
runs for duplicates too.
`,
	Bad: `rdb.SetNX(ctx, "seen:"+id, 1, 24*time.Hour)
rdb.IncrBy(ctx, "points:"+user, n)
`,
	Good: `ok, err := rdb.SetNX(ctx, "seen:"+id, 1, 24*time.Hour).Result()
if err != nil || !ok {
	return err
}
`,
}

// checkUndecided reports a dedup check whose result decides no branch when
// an effect after it then runs for duplicates too, or when it is a claim
// (a lease nobody looks at). An INSERT … ON CONFLICT DO NOTHING or a SET NX
// with nothing after it to guard is an idempotent write, not a check.
func (a *pkgAnalysis) checkUndecided(s *summary, c *check, name string) {
	if !s.undecided(c) {
		return
	}
	eff := ""
	for _, o := range s.occs {
		if o.covered == c {
			eff = "; " + o.desc + " runs for duplicates too"
			break
		}
	}
	if eff == "" && c.kind != ckClaim {
		return
	}
	a.report(IDEM004, c.pos, name, token.NoPos, "", "result of dedup check %s in handler %s never decides a branch%s", c.desc, name, eff)
}
