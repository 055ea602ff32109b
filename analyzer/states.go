package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// State checks: a handler that reads the entity a message is about, skips
// when its state says the work is done, and writes that state with the
// effect:
//
//	o, err := repo.Get(ctx, id) // SELECT … status … FROM orders WHERE id = $1
//	if o.Status == "paid" {
//		return nil
//	}
//	repo.AddPoints(ctx, o.User, o.Points)
//	repo.MarkPaid(ctx, id) // UPDATE orders SET status = 'paid' WHERE id = $1
//
// This is a lookup followed by a write of what it looked up, as the other
// check-then-act dedups: accepted, and reported with -strict (IDEM005). The
// state may be read through helpers and repository methods: a function
// that returns a row scanned from a SELECT (a struct whose fields the Scan
// fills, or the scanned column) tells its callers which table it read
// (stateFact), however many calls deep.
//
// It guards an effect when a comparison of a field read from that row (with
// a constant or another field of the row — the state recorded against the
// state to reach —, or the row with nil) decides a branch, one side of which
// reaches no effect and the other does, and the function (or one it calls)
// writes that table: an UPDATE whose SET names the compared field's column
// (Status and status, ProcessedAt and processed_at), or for a row compared
// with nil (found: skip), or its error with a no-rows sentinel (err ==
// sql.ErrNoRows: not found, insert), an INSERT into it. A state compared but never
// written (an order's owner, a cancelled flag) is validation, not a dedup.

// stateFact: the function returns, in result Result, a row read from Table
// (or a value scanned from it) by a lookup keyed on parameter KeyParam.
type stateFact struct {
	Result   int
	Table    string
	KeyParam int
	Filter   []string // the columns the lookup's WHERE holds to a fixed state
}

// stateScans registers the struct fields a lookup's Scan fills: loads of
// them carry the row's state, and the struct is a base its function may
// return.
func (a *pkgAnalysis) stateScans(s *summary, c *check, sc *ssa.Call) {
	_, sargs := splitArgs(sc.Common())
	for _, sa := range sargs {
		for _, fa := range scanFields(sa) {
			if !containsValue(c.bases, fa.X) {
				c.bases = append(c.bases, fa.X)
			}
			name := fieldName(fa.X.Type(), fa.Field)
			for _, r := range *fa.Referrers() {
				if ld, ok := r.(*ssa.UnOp); ok && ld.Op == token.MUL && ld.X == fa {
					s.values[ld] = &dval{chk: c, kind: vState, field: name}
				}
			}
		}
	}
	// A base read back from elsewhere in the function: its other field
	// loads carry the state too.
	for _, b := range c.bases {
		s.stateValues(c, b, 0)
	}
}

// scanFields returns the struct fields (&o.Status) a Scan writes, from its
// variadic argument slice.
func scanFields(v ssa.Value) []*ssa.FieldAddr {
	var out []*ssa.FieldAddr
	vals, _ := variadicValues(v)
	for _, x := range vals {
		if fa, ok := x.(*ssa.FieldAddr); ok {
			out = append(out, fa)
		}
	}
	return out
}

// addStateCheck records, at a call of a function that returns a row, a
// state lookup whose values are the row and its fields.
func (a *pkgAnalysis) addStateCheck(s *summary, ci ssa.CallInstruction, f *stateFact, args []ssa.Value, via string) {
	call, ok := ci.(*ssa.Call)
	if !ok {
		return
	}
	row := result(call, f.Result)
	if row == nil {
		return
	}
	c := &check{call: ci, pos: ci.Pos(), desc: via, kind: ckLookup, state: true, store: knowledge.SQL, table: f.Table, bases: []ssa.Value{row}, filter: f.Filter}
	if f.KeyParam >= 0 && f.KeyParam < len(args) {
		c.key = args[f.KeyParam]
	}
	s.checks = append(s.checks, c)
	s.values[row] = &dval{chk: c, kind: vState}
	s.stateValues(c, row, 0)
	// Its error compared with a no-rows sentinel (err == sql.ErrNoRows: not
	// found, go on) tells what the row compared with nil does; compared
	// with nil it tells nothing (a failure, or a row whose state decides).
	if e := errResult(call); e != nil && s.values[e] == nil {
		s.values[e] = &dval{chk: c, kind: vErr, s: implFresh, sentinel: knowledge.NoRows}
	}
}

// stateValues marks the loads of a row's fields (through a pointer or of a
// struct value) as carrying c's state.
func (s *summary) stateValues(c *check, row ssa.Value, depth int) {
	refs := row.Referrers()
	if refs == nil || depth > 3 {
		return
	}
	for _, r := range *refs {
		switch x := r.(type) {
		case *ssa.Call:
			s.rowView(c, row, x, depth) // a getter, a conversion
		case *ssa.FieldAddr:
			name := fieldName(x.X.Type(), x.Field)
			for _, rr := range *x.Referrers() {
				if ld, ok := rr.(*ssa.UnOp); ok && ld.Op == token.MUL && ld.X == x {
					if s.values[ld] == nil {
						s.values[ld] = &dval{chk: c, kind: vState, field: name}
					}
				}
			}
		case *ssa.Field:
			if s.values[x] == nil {
				s.values[x] = &dval{chk: c, kind: vState, field: fieldName(x.X.Type(), x.Field)}
			}
		case *ssa.UnOp:
			if x.Op == token.MUL {
				s.stateValues(c, x, depth+1) // o := *p
			}
		case *ssa.Store:
			if x.Val == row {
				// A row returned by value into a variable whose fields
				// are read through its address (sqlc's :one).
				s.stateValues(c, x.Addr, depth+1)
			}
		case *ssa.IndexAddr:
			// An element of a slice of rows, as a range loop reads it,
			// or its field (rows[0].Status).
			s.stateValues(c, x, depth+1)
			for _, rr := range *x.Referrers() {
				if ld, ok := rr.(*ssa.UnOp); ok && ld.Op == token.MUL && ld.X == x {
					s.stateValues(c, ld, depth+1)
				}
			}
		case *ssa.Index:
			s.stateValues(c, x, depth+1)
		}
	}
}

// stateCond returns the state value a branch condition compares: a field
// of a looked-up row compared with a constant or with another field of the
// row, a boolean field, or the row compared with nil.
func (s *summary) stateCond(v ssa.Value) *dval {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return s.stateCond(x.X)
		}
	case *ssa.Phi:
		return s.flagState(x, map[*ssa.Phi]bool{})
	case *ssa.BinOp:
		if c, ok := x.Y.(*ssa.Call); ok && x.Op == token.LSS && len(c.Call.Args) == 1 {
			if d := s.values[c.Call.Args[0]]; d != nil && d.kind == vState {
				return s.pendingRows(d, c) // i < len(rows)
			}
		}
		d, other := s.values[x.X], x.Y
		if d == nil || d.kind != vState {
			d, other = s.values[x.Y], x.X
		}
		if d == nil || d.kind != vState {
			return nil
		}
		if isZeroIDTest(x.Op, d, other) {
			// find.ID == 0 (or <= 0) after a lookup filled find: the row
			// was not found, as a nil row is.
			return &dval{chk: d.chk, kind: vState}
		}
		if x.Op != token.EQL && x.Op != token.NEQ {
			return nil
		}
		if o := s.values[other]; o != nil && o.kind == vState && o.chk == d.chk && o.field != "" && d.field != "" {
			// Two fields of one row (sub.LastAlertStatus == sub.Status):
			// the state recorded against the state to reach. The one
			// the function writes is the state.
			if !s.writesState(d) {
				return o
			}
			return d
		}
		if k, ok := other.(*ssa.Const); ok {
			if d.field == "" && k.Value != nil {
				return nil // a row compared with a value, not nil
			}
			if d.field != "" && k.Value != nil && k.Value.Kind() == constant.Unknown {
				return nil
			}
			return d
		}
		return nil
	}
	if d := s.values[v]; d != nil && d.kind == vState && d.field != "" {
		if b, ok := v.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsBoolean != 0 {
			return d
		}
	}
	return nil
}

// pendingRows returns the state a loop over a lookup's rows tests
// (i < len(rows)): the rows were taken in a state their WHERE fixes
// (message_id IS NULL, status = 'pending') and the function writes that
// column, so each row the body handles had not been handled — a job
// table taken FOR UPDATE SKIP LOCKED and marked in the same transaction.
// The loop's body is the fresh side, its exit the duplicate one. nil for
// other lookups and other tests.
func (s *summary) pendingRows(d *dval, c *ssa.Call) *dval {
	if d.field != "" || len(d.chk.filter) == 0 {
		return nil
	}
	if b, ok := c.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" {
		return nil
	}
	for _, col := range d.chk.filter {
		f := &dval{chk: d.chk, kind: vState, field: col}
		if s.writesState(f) {
			return f
		}
	}
	return nil
}

// flagState returns the state a boolean flag carries: a variable set to
// true in a branch on a looked-up row's state (found = true when a row of
// the loop over the rows matches), and otherwise only to false or to
// itself. Testing the flag asks whether a matching row was found, as a
// nil test of one row does.
func (s *summary) flagState(p *ssa.Phi, seen map[*ssa.Phi]bool) *dval {
	if seen[p] {
		return nil
	}
	seen[p] = true
	var found *dval
	for i, e := range p.Edges {
		switch x := e.(type) {
		case *ssa.Phi:
			d := s.flagState(x, seen)
			if d == nil && !seen[x] {
				return nil
			}
			if d != nil {
				found = d
			}
		case *ssa.Const:
			if x.Value == nil || x.Value.Kind() != constant.Bool {
				return nil
			}
			if !constant.BoolVal(x.Value) {
				continue
			}
			d := s.dominatingState(p.Block().Preds[i])
			if d == nil {
				return nil
			}
			found = d
		default:
			return nil
		}
	}
	if found == nil {
		return nil
	}
	return &dval{chk: found.chk, kind: vState}
}

// dominatingState returns the state value of the nearest branch on a
// looked-up row's state that dominates b.
func (s *summary) dominatingState(b *ssa.BasicBlock) *dval {
	for d := b; d != nil; d = d.Idom() {
		if in, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If); ok {
			if _, flag := in.Cond.(*ssa.Phi); flag {
				continue // one flag set under another: not followed
			}
			if v := s.stateCond(in.Cond); v != nil {
				return v
			}
		}
	}
	return nil
}

// isZeroIDTest reports whether op compares the identity field of a
// looked-up row (ID, Id) with its zero value: an ORM that fills a struct
// leaves it zero when no row matched, so the test asks "found?".
func isZeroIDTest(op token.Token, d *dval, other ssa.Value) bool {
	if normColumn(d.field) != "id" {
		return false
	}
	k, ok := other.(*ssa.Const)
	if !ok || k.Value == nil {
		return false
	}
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return false
	}
	switch k.Value.Kind() {
	case constant.Int:
		return constant.Sign(k.Value) == 0 || (op == token.LSS || op == token.GEQ) && constant.Compare(k.Value, token.EQL, constant.MakeInt64(1))
	case constant.String:
		return constant.StringVal(k.Value) == ""
	}
	return false
}

// stateDecision makes the decision of a branch on a state value: the side
// that reaches no effect of the function is the duplicate, when the other
// reaches one, and the state is written with the effect. nil when the
// branch is no dedup.
func (s *summary) stateDecision(in *ssa.If, d *dval) *decision {
	if !s.writesState(d) {
		return nil
	}
	b := in.Block()
	reach := [2]bool{}
	for i, succ := range b.Succs {
		for _, o := range s.occs {
			if s.reaches(succ, o.instr.Block(), b) {
				reach[i] = true
				break
			}
		}
	}
	if reach[0] == reach[1] {
		return nil
	}
	fresh := 0
	if reach[1] {
		fresh = 1
	}
	dec := &decision{chk: d.chk, blk: b, fresh: b.Succs[fresh], other: b.Succs[1-fresh]}
	dec.succ[fresh], dec.succ[1-fresh] = implFresh, implDup
	return dec
}

// writesState reports whether the function writes the state d reads: an
// UPDATE of the looked-up table that sets the field's column, or for the
// row itself any write of the table.
func (s *summary) writesState(d *dval) bool {
	cols, ok := s.writes[d.chk.table]
	if !ok || d.chk.table == "" {
		return false
	}
	return d.field == "" || setsField(cols, d.field)
}

// setsField reports whether the columns a write sets include the column of
// a row's field (Status and status), or the whole row ("*").
func setsField(cols map[string]bool, field string) bool {
	if cols["*"] {
		return true
	}
	want := normColumn(field)
	for col := range cols {
		if normColumn(col) == want {
			return true
		}
	}
	return false
}

// normColumn folds a Go field name and a column name to one form:
// ProcessedAt, processed_at and processedat are alike.
func normColumn(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// inferState finds a function that returns a looked-up row: a base of a
// lookup (or of a state check made at a call) returned as one result, or
// loaded from and returned.
func (a *pkgAnalysis) inferState(s *summary) {
	for _, b := range s.fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for i, v := range r.Results {
			for _, v := range returnedValues(v) {
				for _, c := range s.checks {
					if c.kind == ckLookup && c.table != "" && (containsValue(c.bases, v) || appendsBase(v, c.bases, map[ssa.Value]bool{})) {
						s.row = &stateFact{Result: i, Table: c.table, KeyParam: paramIndex(s.fn, c.key), Filter: c.filter}
						return
					}
				}
			}
		}
	}
}

// appendsBase reports whether v is a slice of looked-up rows: the rows a
// loop over a query's result scans and appends (events = append(events,
// &event)), through the loop's phis.
func appendsBase(v ssa.Value, bases []ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return false
	}
	seen[v] = true
	switch x := v.(type) {
	case *ssa.Phi:
		for _, e := range x.Edges {
			if appendsBase(e, bases, seen) {
				return true
			}
		}
	case *ssa.Call:
		b, ok := x.Call.Value.(*ssa.Builtin)
		if !ok || b.Name() != "append" || len(x.Call.Args) != 2 {
			return false
		}
		vals, _ := variadicValues(x.Call.Args[1])
		for _, e := range vals {
			if ld, ok := e.(*ssa.UnOp); ok && ld.Op == token.MUL {
				e = ld.X // append(rows, row) of a struct value
			}
			if containsValue(bases, e) {
				return true
			}
		}
		return appendsBase(x.Call.Args[0], bases, seen)
	}
	return false
}

// returnedValues returns what a return's result v may be: v, the
// variable it loads, and, in a function with defers (whose results go
// through a slot), the values stored into that slot.
func returnedValues(v ssa.Value) []ssa.Value {
	v = peel(v)
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return []ssa.Value{v}
	}
	out := []ssa.Value{ld.X}
	if al, ok := ld.X.(*ssa.Alloc); ok {
		for _, r := range *al.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == al {
				x := peel(st.Val)
				if l, ok := x.(*ssa.UnOp); ok && l.Op == token.MUL {
					x = l.X
				}
				out = append(out, x)
			}
		}
	}
	return out
}

func containsValue(vs []ssa.Value, v ssa.Value) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// rowLookup records a row read: gorm's First(&o) (the row is its
// argument, the table its model type), a MongoDB FindOne(…).Decode(&o) (the
// row is what its Scan — Decode — fills, the table its collection).
func (a *pkgAnalysis) rowLookup(s *summary, ci ssa.CallInstruction, call *ssa.Call, r bound, recv ssa.Value, args []ssa.Value) {
	key := arg(args, r.key)
	if r.arg >= 0 {
		row := peel(peelVariadic(arg(args, r.arg)))
		table := modelTable(row)
		if table == "" {
			return
		}
		c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckLookup, state: true, store: knowledge.SQL, recv: recv, key: key, table: table, bases: []ssa.Value{row}, filter: a.ormFilter(recv, arg(args, r.arg+1))}
		s.checks = append(s.checks, c)
		s.stateValues(c, row, 0)
		return
	}
	table := a.collectionOf(recv)
	if call == nil || table == "" {
		return
	}
	c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckLookup, state: true, store: knowledge.Mongo, recv: recv, key: key, table: table}
	for _, dec := range a.roleCalls(call, knowledge.Scan) {
		if _, dargs := splitArgs(dec.Common()); len(dargs) == 1 {
			row := peel(dargs[0])
			c.bases = append(c.bases, row)
			s.stateValues(c, row, 0)
		}
	}
	if len(c.bases) > 0 {
		s.checks = append(s.checks, c)
	}
}

// mongoWrite records a write of a collection and the field names its
// update document names ($set: {status: …}).
func (a *pkgAnalysis) mongoWrite(s *summary, recv ssa.Value, r bound, args []ssa.Value) {
	table := a.collectionOf(recv)
	if table == "" {
		return
	}
	var names []string
	if r.Mode == knowledge.MongoUpdate {
		names = reachedStrings(arg(args, r.arg))
	}
	s.addWrite(table, names...)
}

// collectionOf names the collection a handle is: "mongo:NAME" for
// db.Collection("NAME"), "mongo:T.f" for one kept in field f of a struct T;
// "" when unknown.
func (a *pkgAnalysis) collectionOf(v ssa.Value) string {
	if v == nil {
		return ""
	}
	switch x := peel(v).(type) {
	case *ssa.Call:
		if r, ok := a.find(callee(&x.Call), knowledge.Collection); ok {
			_, args := splitArgs(&x.Call)
			if name, ok := constString(arg(args, r.arg)); ok {
				return "mongo:" + name
			}
		}
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			return "mongo:" + types.TypeString(derefType(fa.X.Type()), nil) + "." + fieldName(fa.X.Type(), fa.Field)
		}
	}
	return ""
}

// ormWrite records a gorm update of its model's table: the column an
// Update names, the map keys or struct fields Updates is given.
func (a *pkgAnalysis) ormWrite(s *summary, recv ssa.Value, args []ssa.Value, r bound) {
	val := arg(args, r.arg)
	var cols []string
	if r.arg == 1 {
		if col, ok := constString(arg(args, 0)); ok {
			cols = append(cols, col)
		}
	}
	cols = append(cols, reachedStrings(val)...)
	a.writeRow(s, recv, val, cols)
}

// rowWrite records an ORM write of a row that is no effect (xorm's
// Update(bean), gorm's Save): the columns its chain's Cols names, the
// fields stored into the value, or every column ("*") when neither says.
func (a *pkgAnalysis) rowWrite(s *summary, recv, val ssa.Value) {
	a.writeRow(s, recv, val, nil)
}

// writeRow records a write of the table of the model on recv's chain
// (its Model call: Model(&Invoice{})) or of val, setting cols, the columns
// the chain's Columns calls name (Cols, Select) and the fields stored into
// val.
func (a *pkgAnalysis) writeRow(s *summary, recv, val ssa.Value, cols []string) {
	table := ""
	named := false
	for v, i := recv, 0; v != nil && i < 12; i++ {
		call, ok := peel(v).(*ssa.Call)
		if !ok {
			break
		}
		fn := callee(call.Common())
		if fn == nil {
			break
		}
		rv, cargs := splitArgs(call.Common())
		if r, ok := a.find(fn, knowledge.Model); ok && table == "" {
			table = modelTable(arg(cargs, r.arg))
		}
		if r, ok := a.find(fn, knowledge.Columns); ok && r.arg >= 0 {
			for _, x := range cargs[min(r.arg, len(cargs)):] {
				if isNilConst(x) {
					continue // no more columns (Select(q) without args)
				}
				got := reachedStrings(x)
				if i := paramIndex(s.fn, x); len(got) == 0 && i >= 0 {
					// The caller's columns (a store's
					// Select(fields).Save(obj)): named at its call
					// (asCalled).
					got = []string{argCols + strconv.Itoa(i)}
				}
				cols = append(cols, got...)
				named = true
			}
		}
		v = rv
	}
	if table == "" {
		table = modelTable(val)
	}
	if table == "" {
		return
	}
	fields := storedFields(val)
	cols = append(cols, fields...)
	if len(cols) == 0 && !named {
		cols = append(cols, "*")
	}
	s.addWrite(table, cols...)
}

// modelTable names the table of an ORM model value (&Order{…}, &o, &rows
// of a slice of them): "model:" and its named type; "" for anything else
// (a map). A model of a type parameter (a generic store's var obj T) is
// named by the parameter's index, paramTable: a call of an instance names
// its type (asCalled).
func modelTable(v ssa.Value) string {
	if v == nil {
		return ""
	}
	return typeTable(peel(v).Type())
}

// typeTable is modelTable of a value of type t.
func typeTable(t types.Type) string {
	t = types.Unalias(derefType(t))
	if sl, ok := t.Underlying().(*types.Slice); ok {
		t = types.Unalias(derefType(sl.Elem())) // Find(&rows): the rows' model
	}
	if tp, ok := t.(*types.TypeParam); ok {
		return paramTable + strconv.Itoa(tp.Index())
	}
	n, ok := t.(*types.Named)
	if !ok {
		return ""
	}
	if _, ok := n.Underlying().(*types.Struct); !ok {
		return ""
	}
	return "model:" + types.TypeString(n, nil)
}

// storedFields returns the names of the struct fields stored through a
// pointer in its function (&Order{Status: "paid"}, pr.Status = …).
func storedFields(v ssa.Value) []string {
	p := peel(v)
	if _, ok := types.Unalias(p.Type()).Underlying().(*types.Pointer); !ok || p.Referrers() == nil {
		return nil
	}
	var out []string
	for _, r := range *p.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != p {
			continue
		}
		for _, rr := range *fa.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == fa {
				out = append(out, fieldName(p.Type(), fa.Field))
				break
			}
		}
	}
	return out
}
