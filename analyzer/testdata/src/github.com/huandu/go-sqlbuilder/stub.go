// Package sqlbuilder is a stub of github.com/huandu/go-sqlbuilder@v1.14.1 for analyzer tests: signatures mirror the real API.
package sqlbuilder

type Cond struct {
}

func (c *Cond) Equal(field string, value interface{}) string { return "" }

type UpdateBuilder struct {
	Cond
}

func NewUpdateBuilder() *UpdateBuilder { return nil }

func (ub *UpdateBuilder) Update(table string) *UpdateBuilder { return ub }

func (ub *UpdateBuilder) Set(assignment ...string) *UpdateBuilder { return ub }

func (ub *UpdateBuilder) SetMore(assignment ...string) *UpdateBuilder { return ub }

func (ub *UpdateBuilder) Where(andExpr ...string) *UpdateBuilder { return ub }

func (ub *UpdateBuilder) Assign(field string, value interface{}) string { return "" }

func (ub *UpdateBuilder) Incr(field string) string { return "" }

func (ub *UpdateBuilder) Add(field string, value interface{}) string { return "" }

func (ub *UpdateBuilder) Build() (sql string, args []interface{}) { return "", nil }

type InsertBuilder struct {
}

func NewInsertBuilder() *InsertBuilder { return nil }

func (ib *InsertBuilder) InsertInto(table string) *InsertBuilder { return ib }

func (ib *InsertBuilder) InsertIgnoreInto(table string) *InsertBuilder { return ib }

func (ib *InsertBuilder) Cols(col ...string) *InsertBuilder { return ib }

func (ib *InsertBuilder) Values(value ...interface{}) *InsertBuilder { return ib }

func (ib *InsertBuilder) Build() (sql string, args []interface{}) { return "", nil }
