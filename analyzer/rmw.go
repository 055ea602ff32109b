package analyzer

import (
	"go/token"
	"sort"
	"strconv"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Read-modify-write in the program: a handler reads a row, changes one of
// its fields by arithmetic on the value read, and writes the column back
// as a value:
//
//	w, err := repo.FindByUser(ctx, ev.UserID) // SELECT … balance … FROM wallets
//	w.Balance += ev.Amount                    // or w.AddBalance(ev.Amount)
//	repo.Update(ctx, &w)                      // UPDATE wallets SET balance = $1
//
// The UPDATE sets a value, which SQL alone reads as an overwrite; but the
// value is the one read plus the message's, so a redelivery adds it again,
// as SET balance = balance + $1 would. The write is an effect where it is
// called: the first call after the change that writes a column of the
// field's name (Balance and balance, as state checks compare them).

// accumParam: a function adds to (or subtracts from) field of the value
// its parameter param points to (w.Balance += v in Wallet.AddBalance).
type accumParam struct {
	param int // index in fn.Params (the receiver first)
	field string
}

// accumAt: a field of a row read from the database changed by arithmetic
// on its own value, at instruction at.
type accumAt struct {
	field string
	at    ssa.Instruction
}

// readModifyWrite records as effects the calls that write back a row's
// field that the function changed by arithmetic on its read value; and,
// for callers, the parameters whose fields it so changes.
func (a *pkgAnalysis) readModifyWrite(s *summary) {
	var acc []accumAt
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Store:
				fa, ok := in.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				name := fieldName(fa.X.Type(), fa.Field)
				if !accumulates(in.Val, fa) {
					continue
				}
				if p := paramPos(s.fn, fa.X); p >= 0 {
					s.accum = append(s.accum, accumParam{p, name})
				}
				if a.isRow(s, fa.X, 0) {
					acc = append(acc, accumAt{name, in})
				}
			case ssa.CallInstruction:
				f := in.Common().StaticCallee()
				if f == nil || f.Blocks == nil || !a.local(f.Pkg) {
					continue
				}
				args := in.Common().Args
				for _, ap := range a.summary(f).accum {
					if ap.param >= len(args) {
						continue
					}
					v := args[ap.param]
					if p := paramPos(s.fn, v); p >= 0 {
						s.accum = append(s.accum, accumParam{p, ap.field})
					}
					if a.isRow(s, v, 0) {
						acc = append(acc, accumAt{ap.field, in})
					}
				}
			}
		}
	}
	var writes []ssa.Instruction
	for in := range s.writesAt {
		writes = append(writes, in)
	}
	sort.Slice(writes, func(i, j int) bool { return writes[i].Pos() < writes[j].Pos() })
	for _, in := range writes {
		ci, ok := in.(ssa.CallInstruction)
		if !ok || len(s.byInstr[in]) > 0 {
			continue
		}
		if x := writtenBack(s, in, acc); x != nil {
			a.addEffect(s, ci, describeCall(ci.Common())+" (sets "+x.field+", changed by the program from its read value at line "+strconv.Itoa(a.fset.Position(x.at.Pos()).Line)+")", knowledge.SQL, nil)
		} else if ld := s.readBack(ci, s.writesAt[in]); ld != nil {
			a.addEffect(s, ci, describeCall(ci.Common())+" (writes a value computed by the program from the one read at line "+strconv.Itoa(a.fset.Position(ld.Pos()).Line)+")", knowledge.SQL, nil)
		}
	}
}

// readBack returns the load of a number a lookup of a table ci writes
// scanned (SELECT quantity FROM bread … Scan(&q)) that an argument of ci
// adds to or subtracts from (q + change, clamped or not): the write puts
// back the value read plus the message's. nil when none does.
func (s *summary) readBack(ci ssa.CallInstruction, tables map[string]map[string]bool) ssa.Value {
	var found ssa.Value
	var from func(v ssa.Value, sum bool, depth int)
	from = func(v ssa.Value, sum bool, depth int) {
		if v == nil || found != nil || depth > 6 {
			return
		}
		v = peel(v)
		if d := s.values[v]; sum && d != nil && d.kind == vInt && d.chk != nil && d.chk.kind == ckLookup {
			if _, ok := tables[d.chk.table]; ok {
				found = v
				return
			}
		}
		switch x := v.(type) {
		case *ssa.Phi:
			for _, e := range x.Edges {
				from(e, sum, depth+1)
			}
		case *ssa.BinOp:
			if x.Op == token.ADD || x.Op == token.SUB {
				from(x.X, true, depth+1)
				from(x.Y, true, depth+1)
			}
		case *ssa.Convert:
			from(x.X, sum, depth+1)
		case *ssa.MakeInterface:
			from(x.X, sum, depth+1)
		}
	}
	_, args := splitArgs(ci.Common())
	for _, arg := range args {
		vals, ok := variadicValues(arg)
		if !ok {
			vals = []ssa.Value{arg}
		}
		for _, v := range vals {
			from(v, false, 0)
		}
	}
	return found
}

// writtenBack returns the first change of acc (in source order) whose
// field the call in writes back afterwards; nil when it writes none.
func writtenBack(s *summary, in ssa.Instruction, acc []accumAt) *accumAt {
	for i := range acc {
		x := &acc[i]
		if x.at == in || !s.precedes(x.at, in) {
			continue
		}
		for _, cols := range s.writesAt[in] {
			if setsField(cols, x.field) {
				return x
			}
		}
	}
	return nil
}

// accumulates reports whether val, stored into fa, is its own value plus
// or minus something (w.Balance += v): a load of the same field of the same
// value as one operand of an addition or subtraction.
func accumulates(val ssa.Value, fa *ssa.FieldAddr) bool {
	op, ok := peel(val).(*ssa.BinOp)
	if !ok || op.Op != token.ADD && op.Op != token.SUB {
		return false
	}
	for _, x := range []ssa.Value{op.X, op.Y} {
		ld, ok := peel(x).(*ssa.UnOp)
		if !ok || ld.Op != token.MUL {
			continue
		}
		if lfa, ok := ld.X.(*ssa.FieldAddr); ok && lfa.Field == fa.Field && peel(lfa.X) == peel(fa.X) {
			return true
		}
	}
	return false
}

// isRow reports whether v is a row read from the database, or a variable
// holding one: a looked-up row (a state check's base), or the result of a
// call of a function that looks rows up.
func (a *pkgAnalysis) isRow(s *summary, v ssa.Value, depth int) bool {
	if v == nil || depth > 4 {
		return false
	}
	v = peel(v)
	if d := s.values[v]; d != nil && d.kind == vState && d.field == "" {
		return true
	}
	for _, c := range s.checks {
		if c.kind == ckLookup && containsValue(c.bases, v) {
			return true
		}
	}
	switch x := v.(type) {
	case *ssa.Alloc:
		for _, r := range *x.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == x && a.isRow(s, st.Val, depth+1) {
				return true
			}
		}
	case *ssa.UnOp:
		if x.Op == token.MUL {
			return a.isRow(s, x.X, depth+1)
		}
	case *ssa.Extract:
		if c, ok := x.Tuple.(*ssa.Call); ok {
			return a.readsRows(c)
		}
	case *ssa.Call:
		return a.readsRows(x)
	}
	return false
}

// readsRows reports whether a function the call reaches looks rows up.
func (a *pkgAnalysis) readsRows(c *ssa.Call) bool {
	fs := a.callees[c]
	if f := c.Call.StaticCallee(); f != nil {
		fs = append([]*ssa.Function{f}, fs...)
	}
	for _, f := range fs {
		if f == nil || f.Blocks == nil || !a.local(f.Pkg) {
			continue
		}
		cs := a.summary(f)
		if cs.row != nil {
			return true
		}
		for _, ck := range cs.checks {
			if ck.kind == ckLookup {
				return true
			}
		}
	}
	return false
}

// paramPos returns the index of v in fn.Params (the receiver first), -1
// when v is no parameter of fn.
func paramPos(fn *ssa.Function, v ssa.Value) int {
	p, ok := peel(v).(*ssa.Parameter)
	if !ok {
		return -1
	}
	for i, x := range fn.Params {
		if x == p {
			return i
		}
	}
	return -1
}
