// Package clause is a stub of gorm.io/gorm@v1.31.2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package clause

type Expr struct {
	SQL                string
	Vars               []interface{}
	WithoutParentheses bool
}

func (expr Expr) Build(builder Builder) {}

type Expression interface {
	Build(builder Builder)
}

type Builder interface {
	Writer
	AddError(error) error
	AddVar(Writer, ...interface{})
	WriteQuoted(field interface{})
}

type Writer interface {
	WriteByte(byte) error
	WriteString(string) (int, error)
}

type OnConflict struct {
	Columns      []Column
	Where        Where
	TargetWhere  Where
	OnConstraint string
	DoNothing    bool
	DoUpdates    Set
	UpdateAll    bool
}

func (onConflict OnConflict) Build(builder Builder) {}

func (_ OnConflict) Name() string { return "" }

func (onConflict OnConflict) MergeClause(clause *Clause) {}

type Clause struct {
	Name string
}

func (c Clause) Build(builder Builder) {}

type Column struct {
	Table string
	Name  string
	Alias string
	Raw   bool
}

type Where struct {
	Exprs []Expression
}

func (where Where) Name() string { return "" }

func (where Where) Build(builder Builder) {}

func (where Where) MergeClause(clause *Clause) {}

type Set []Assignment

func (set Set) Name() string { return "" }

func (set Set) Build(builder Builder) {}

func (set Set) MergeClause(clause *Clause) {}

type Assignment struct {
	Column Column
	Value  interface{}
}

func Assignments(values map[string]interface{}) Set { return nil }

func AssignmentColumns(values []string) Set { return nil }

type Returning struct {
	Columns []Column
}

func (returning Returning) Name() string { return "" }

func (returning Returning) Build(builder Builder) {}

func (returning Returning) MergeClause(clause *Clause) {}

type Eq struct {
	Column interface{}
	Value  interface{}
}

func (eq Eq) Build(builder Builder) {}
