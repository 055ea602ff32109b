package analyzer

import (
	"go/constant"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
)

// A replace is an insert whose rows the function removed first: TRUNCATE
// bids then COPY into bids (a snapshot reloaded), DELETE FROM items WHERE
// order_id = $1 then INSERT INTO items (order_id, …) (the rows of a key
// rewritten). A repeat leaves the same rows, so the insert is no effect.
// The clear must run before the insert whenever the insert runs (dominate
// it) in the same function; the parameters' values are not compared.

// clearAt is a statement that clears rows, where it runs.
type clearAt struct {
	instr ssa.Instruction
	sqlclass.Clear
}

// addClears records the clears of a statement executed at ci.
func (s *summary) addClears(ci ssa.Instruction, cls sqlclass.Class) {
	for _, c := range cls.Clears {
		s.clears = append(s.clears, clearAt{ci, c})
	}
}

// replaced reports whether o is an SQL insert into rows a clear of the
// function removed before it on every path.
func (s *summary) replaced(o *occ) bool {
	if o.kind != knowledge.SQL || !o.direct || o.table == "" {
		return false
	}
	for _, c := range s.clears {
		if c.Covers(o.table, o.cols) && c.instr != o.instr && s.precedes(c.instr, o.instr) {
			return true
		}
	}
	return false
}

// A move is an insert that copies rows (INSERT INTO mails_archive …
// SELECT … FROM mails) which a DELETE of the function then removes from
// their source (DELETE FROM mails WHERE id = ANY($1)): an archive, a
// partition's rows migrated. A repeat finds nothing left to copy, so the
// insert is no effect. The DELETE must run after the insert whenever it
// runs (the insert precedes it), in the same function.

// deleteAt is a statement that deletes rows of a table, where it runs.
type deleteAt struct {
	instr ssa.Instruction
	table string
}

// moved reports whether o is an SQL insert copying rows from a table that
// a DELETE of the function removes rows of after it.
func (s *summary) moved(o *occ) bool {
	if o.kind != knowledge.SQL || !o.direct || len(o.sources) == 0 {
		return false
	}
	for _, d := range s.deletes {
		if d.instr != o.instr && slices.Contains(o.sources, d.table) && s.precedes(o.instr, d.instr) {
			return true
		}
	}
	return false
}

// copyTarget sets the table and columns of an effect call whose rule names
// them by arguments (pgx's CopyFrom(ctx, pgx.Identifier{"bids"},
// []string{"id", …}, rows)), when the call gives constant strings.
func copyTarget(o *occ, cc *ssa.CallCommon, r bound, args []ssa.Value) {
	fn := callee(cc)
	if r.Into == "" || fn == nil {
		return
	}
	name := constStrings(arg(args, knowledge.Param(fn, r.Into)))
	if len(name) == 0 {
		return
	}
	o.table = strings.ToLower(name[len(name)-1]) // schema.table: the table
	o.cols = constStrings(arg(args, knowledge.Param(fn, r.Cols)))
	for i, c := range o.cols {
		o.cols[i] = strings.ToLower(c)
	}
}

// constStrings returns the elements of a slice literal of constant strings
// in index order; nil when v is not one.
func constStrings(v ssa.Value) []string {
	elems := sliceElems(v)
	out := make([]string, len(elems))
	for i, e := range elems {
		s, ok := constString(e)
		if !ok {
			return nil
		}
		out[i] = s
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sliceElems returns the values stored into the elements of a slice
// literal ([]string{a, b}) in index order; nil when v is not one, or an
// element is stored at an index that is not constant or not at all.
func sliceElems(v ssa.Value) []ssa.Value {
	sl, ok := peel(v).(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	var out []ssa.Value
	for _, r := range *alloc.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		idx, ok := ia.Index.(*ssa.Const)
		if !ok || idx.Value == nil || idx.Value.Kind() != constant.Int {
			return nil
		}
		i, _ := constant.Int64Val(idx.Value)
		for _, rr := range *ia.Referrers() {
			st, ok := rr.(*ssa.Store)
			if !ok || st.Addr != ia {
				continue
			}
			for int64(len(out)) <= i {
				out = append(out, nil)
			}
			out[i] = st.Val
		}
	}
	if slices.Contains(out, nil) {
		return nil
	}
	return out
}
