package analyzer

import (
	"go/constant"
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
	sl, ok := peel(v).(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	var out []string
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
			s, ok := constString(st.Val)
			if !ok {
				return nil
			}
			for int64(len(out)) <= i {
				out = append(out, "")
			}
			out[i] = s
		}
	}
	for _, s := range out {
		if s == "" {
			return nil
		}
	}
	return out
}
