package analyzer

import "golang.org/x/tools/go/analysis"

var doc000 = CodeDoc{
	Code:  IDEM000,
	Title: "malformed //idem: directive",
	Text: `A malformed //idem: directive: an //idem:ignore without a known code or
without a reason, or an unknown directive. It suppresses nothing.
`,
	Bad: `//idem:ignore IDEM001
`,
	Good: `//idem:ignore IDEM001 the ledger has a unique index on the event id
`,
}

func (a *pkgAnalysis) reportDirectives() {
	for _, b := range a.dirs.bad {
		a.emit(Finding{Diagnostic: analysis.Diagnostic{Pos: b.pos, Category: string(IDEM000), Message: b.msg + " (IDEM000)", URL: IDEM000.URL()}, Code: IDEM000})
	}
}
