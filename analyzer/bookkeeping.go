package analyzer

import (
	"go/types"
	"slices"
	"strings"
	"unicode"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Bookkeeping: writes to tables that record what happened rather than
// hold the business state — an audit trail (audit_logs), a log of status
// changes (order_status_log), a scrape's status rows — are telemetry kept
// in the database. A repeat adds one more record of the same event, as a
// repeated log line does, and a failed write loses no effect a redelivery
// must redo. The catalog names such tables by pattern
// (knowledge.BookkeepingTables); a team whose table of that name is
// business state declares the function writing it under effects in its
// rules file. An UPDATE that sets only columns recording how its row's
// thing is doing (health, last_check_at, updated_at:
// knowledge.BookkeepingColumns) is bookkeeping too, and so is an UPDATE of
// the program's own claimed job table (jobtables.go): a job's progress or
// status on its own row, which the queue keeps.

// bookkeeping reports whether the statement cls writes only bookkeeping
// tables, or only bookkeeping columns of one row set.
func (a *pkgAnalysis) bookkeeping(cls sqlclass.Class) bool {
	if !cls.Write || cls.Table == "" {
		return false
	}
	if a.claimTables[cls.Table] && !cls.Insert && len(cls.Updates) == 0 && len(cls.Deletes) == 0 && len(cls.Sets) > 0 {
		return true // a job's progress or status on its own row of a claimed job table
	}
	if !a.cat.BookkeepingTable(cls.Table) {
		return a.bookkeepingUpdate(cls)
	}
	for _, u := range cls.Updates {
		if !a.cat.BookkeepingTable(u.Table) {
			return false
		}
	}
	for _, t := range cls.Deletes {
		if !a.cat.BookkeepingTable(t) {
			return false
		}
	}
	return true
}

// bookkeepingUpdate reports whether cls is a single UPDATE that sets only
// bookkeeping columns (health, last_check_at, updated_at): the row's
// business state is left as it was.
func (a *pkgAnalysis) bookkeepingUpdate(cls sqlclass.Class) bool {
	if cls.Insert || len(cls.Sets) == 0 || len(cls.Updates) > 0 || len(cls.Deletes) > 0 || len(cls.Columns) > 0 {
		return false
	}
	for _, c := range cls.Sets {
		if !a.cat.BookkeepingColumn(c) {
			return false
		}
	}
	return true
}

// bookkeepingModel reports whether an ORM model value's type names a
// bookkeeping table (AuditLog, gorm's audit_logs).
func (a *pkgAnalysis) bookkeepingModel(v ssa.Value) bool {
	if v == nil {
		return false
	}
	t := types.Unalias(derefType(peel(v).Type()))
	if sl, ok := t.Underlying().(*types.Slice); ok {
		t = types.Unalias(derefType(sl.Elem()))
	}
	n, ok := t.(*types.Named)
	return ok && a.cat.BookkeepingTable(snake(n.Obj().Name()))
}

// bookkeepingCall reports whether call runs a statement that writes only
// bookkeeping tables; its failure loses nothing that matters.
func (a *pkgAnalysis) bookkeepingCall(call *ssa.Call) bool {
	_, args := splitArgs(call.Common())
	for _, r := range a.rulesOf(callee(call.Common())) {
		if r.Role != knowledge.Effect {
			continue
		}
		switch r.Mode {
		case knowledge.SQLExec, knowledge.SQLQuery, knowledge.SQLStmt, knowledge.SQLBuilt:
			texts, _, ok := a.ruleTexts(call, r)
			return ok && a.bookkeeping(mergeTexts(texts))
		case knowledge.GormCreate:
			return a.bookkeepingModel(arg(args, r.arg))
		}
	}
	return false
}

// snake turns a Go type name into gorm's table word order (AuditLog:
// audit_log).
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dropBookkeeping removes the bookkeeping inserts that no unique-violation
// test made a check: they are no effect.
func (s *summary) dropBookkeeping() {
	drop := func(o *occ) bool { return o.bookkeeping && o.fromCheck == nil }
	if !slices.ContainsFunc(s.occs, drop) {
		return
	}
	s.occs = slices.DeleteFunc(s.occs, drop)
	for instr, os := range s.byInstr {
		if os = slices.DeleteFunc(os, drop); len(os) == 0 {
			delete(s.byInstr, instr)
		} else {
			s.byInstr[instr] = os
		}
	}
}
