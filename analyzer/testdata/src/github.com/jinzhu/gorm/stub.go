// Package gorm is a stub of github.com/jinzhu/gorm@v1.9.16 for analyzer tests: signatures mirror the real API.
package gorm

import "errors"

// ErrRecordNotFound is returned when no record matches.
var ErrRecordNotFound = errors.New("record not found")

// DB is a gorm v1 handle; every chain method returns a new one.
type DB struct {
	Value        interface{}
	Error        error
	RowsAffected int64
}

// Model is gorm v1's base model.
type Model struct {
	ID uint
}

// SqlExpr is a raw SQL expression.
type SqlExpr struct {
	expr string
	args []interface{}
}

// Open opens a database.
func Open(dialect string, args ...interface{}) (*DB, error) { return &DB{}, nil }

// Expr makes a raw SQL expression.
func Expr(expression string, args ...interface{}) *SqlExpr {
	return &SqlExpr{expr: expression, args: args}
}

func (s *DB) Where(query interface{}, args ...interface{}) *DB             { return s }
func (s *DB) Select(query interface{}, args ...interface{}) *DB            { return s }
func (s *DB) First(out interface{}, where ...interface{}) *DB              { return s }
func (s *DB) Take(out interface{}, where ...interface{}) *DB               { return s }
func (s *DB) Last(out interface{}, where ...interface{}) *DB               { return s }
func (s *DB) Find(out interface{}, where ...interface{}) *DB               { return s }
func (s *DB) FirstOrInit(out interface{}, where ...interface{}) *DB        { return s }
func (s *DB) Update(attrs ...interface{}) *DB                              { return s }
func (s *DB) Updates(values interface{}, ignoreProtectedAttrs ...bool) *DB { return s }
func (s *DB) UpdateColumn(attrs ...interface{}) *DB                        { return s }
func (s *DB) UpdateColumns(values interface{}) *DB                         { return s }
func (s *DB) Save(value interface{}) *DB                                   { return s }
func (s *DB) Create(value interface{}) *DB                                 { return s }
func (s *DB) Delete(value interface{}, where ...interface{}) *DB           { return s }
func (s *DB) Raw(sql string, values ...interface{}) *DB                    { return s }
func (s *DB) Exec(sql string, values ...interface{}) *DB                   { return s }
func (s *DB) Model(value interface{}) *DB                                  { return s }
func (s *DB) Table(name string) *DB                                        { return s }
func (s *DB) Preload(column string, conditions ...interface{}) *DB         { return s }
func (s *DB) Set(name string, value interface{}) *DB                       { return s }
func (s *DB) Begin() *DB                                                   { return s }
func (s *DB) Commit() *DB                                                  { return s }
func (s *DB) Rollback() *DB                                                { return s }

// Transaction runs fc in a transaction.
func (s *DB) Transaction(fc func(tx *DB) error) (err error) { return fc(s) }
