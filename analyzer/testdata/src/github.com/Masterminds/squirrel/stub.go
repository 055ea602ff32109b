// Package squirrel is a stub of github.com/Masterminds/squirrel@v1.5.4 for analyzer tests: signatures mirror the real API.
//
// A subset: the statement builders, their table, suffix and option methods
// and ToSql. Checked against the real package's source; bodies return zero
// values (the real builders are types over github.com/lann/builder).
package squirrel

// Sqlizer is the interface that wraps the ToSql method.
type Sqlizer interface {
	ToSql() (string, []interface{}, error)
}

// PlaceholderFormat is the interface that wraps the ReplacePlaceholders method.
type PlaceholderFormat interface {
	ReplacePlaceholders(sql string) (string, error)
}

type dollarFormat struct{}

func (dollarFormat) ReplacePlaceholders(sql string) (string, error) { return sql, nil }

var Dollar = dollarFormat{}

// Eq is syntactic sugar for use with Where/Having/Set methods.
type Eq map[string]interface{}

func (eq Eq) ToSql() (string, []interface{}, error) { return "", nil, nil }

func Expr(sql string, args ...interface{}) Sqlizer { return nil }

type StatementBuilderType struct{}

var StatementBuilder StatementBuilderType

func (b StatementBuilderType) PlaceholderFormat(f PlaceholderFormat) StatementBuilderType { return b }
func (b StatementBuilderType) Select(columns ...string) SelectBuilder                     { return SelectBuilder{} }
func (b StatementBuilderType) Insert(into string) InsertBuilder                           { return InsertBuilder{} }
func (b StatementBuilderType) Update(table string) UpdateBuilder                          { return UpdateBuilder{} }
func (b StatementBuilderType) Delete(from string) DeleteBuilder                           { return DeleteBuilder{} }

func Select(columns ...string) SelectBuilder { return SelectBuilder{} }
func Insert(into string) InsertBuilder       { return InsertBuilder{} }
func Update(table string) UpdateBuilder      { return UpdateBuilder{} }
func Delete(from string) DeleteBuilder       { return DeleteBuilder{} }

type InsertBuilder struct{}

func (b InsertBuilder) PlaceholderFormat(f PlaceholderFormat) InsertBuilder { return b }
func (b InsertBuilder) ToSql() (string, []interface{}, error)               { return "", nil, nil }
func (b InsertBuilder) Options(options ...string) InsertBuilder             { return b }
func (b InsertBuilder) Into(from string) InsertBuilder                      { return b }
func (b InsertBuilder) Columns(columns ...string) InsertBuilder             { return b }
func (b InsertBuilder) Values(values ...interface{}) InsertBuilder          { return b }
func (b InsertBuilder) Suffix(sql string, args ...interface{}) InsertBuilder {
	return b
}
func (b InsertBuilder) SetMap(clauses map[string]interface{}) InsertBuilder { return b }

type UpdateBuilder struct{}

func (b UpdateBuilder) PlaceholderFormat(f PlaceholderFormat) UpdateBuilder { return b }
func (b UpdateBuilder) ToSql() (string, []interface{}, error)               { return "", nil, nil }
func (b UpdateBuilder) Table(table string) UpdateBuilder                    { return b }
func (b UpdateBuilder) Set(column string, value interface{}) UpdateBuilder  { return b }
func (b UpdateBuilder) SetMap(clauses map[string]interface{}) UpdateBuilder {
	return b
}
func (b UpdateBuilder) Where(pred interface{}, args ...interface{}) UpdateBuilder { return b }
func (b UpdateBuilder) Suffix(sql string, args ...interface{}) UpdateBuilder      { return b }

type DeleteBuilder struct{}

func (b DeleteBuilder) PlaceholderFormat(f PlaceholderFormat) DeleteBuilder { return b }
func (b DeleteBuilder) ToSql() (string, []interface{}, error)               { return "", nil, nil }
func (b DeleteBuilder) From(from string) DeleteBuilder                      { return b }
func (b DeleteBuilder) Where(pred interface{}, args ...interface{}) DeleteBuilder {
	return b
}

type SelectBuilder struct{}

func (b SelectBuilder) PlaceholderFormat(f PlaceholderFormat) SelectBuilder { return b }
func (b SelectBuilder) ToSql() (string, []interface{}, error)               { return "", nil, nil }
func (b SelectBuilder) Columns(columns ...string) SelectBuilder             { return b }
func (b SelectBuilder) From(from string) SelectBuilder                      { return b }
func (b SelectBuilder) Where(pred interface{}, args ...interface{}) SelectBuilder {
	return b
}
