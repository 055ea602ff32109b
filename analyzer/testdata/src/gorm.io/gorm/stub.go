// Package gorm is a stub of gorm.io/gorm@v1.31.2 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package gorm

import (
	"context"
	"database/sql"
	"errors"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

type DB struct {
	*Config
	Error        error
	RowsAffected int64
	Statement    *Statement
}

func (db *DB) AddError(err error) error { return nil }

func (db *DB) Create(value interface{}) (tx *DB) { return nil }

func (db *DB) CreateInBatches(value interface{}, batchSize int) (tx *DB) { return nil }

func (db *DB) Save(value interface{}) (tx *DB) { return nil }

func (db *DB) Update(column string, value interface{}) (tx *DB) { return nil }

func (db *DB) Updates(values interface{}) (tx *DB) { return nil }

func (db *DB) UpdateColumn(column string, value interface{}) (tx *DB) { return nil }

func (db *DB) UpdateColumns(values interface{}) (tx *DB) { return nil }

func (db *DB) Exec(sql string, values ...interface{}) (tx *DB) { return nil }

func (db *DB) Raw(sql string, values ...interface{}) (tx *DB) { return nil }

func (db *DB) Scan(dest interface{}) (tx *DB) { return nil }

func (db *DB) Where(query interface{}, args ...interface{}) (tx *DB) { return nil }

func (db *DB) Model(value interface{}) (tx *DB) { return nil }

func (db *DB) Table(name string, args ...interface{}) (tx *DB) { return nil }

func (db *DB) Transaction(fc func(tx *DB) error, opts ...*sql.TxOptions) (err error) { return nil }

func (db *DB) Begin(opts ...*sql.TxOptions) *DB { return nil }

func (db *DB) Commit() *DB { return nil }

func (db *DB) Rollback() *DB { return nil }

func (db *DB) First(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) Take(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) Last(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) Find(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) FirstOrCreate(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) FirstOrInit(dest interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) Delete(value interface{}, conds ...interface{}) (tx *DB) { return nil }

func (db *DB) Clauses(conds ...clause.Expression) (tx *DB) { return nil }

func (db *DB) WithContext(ctx context.Context) *DB { return nil }

func (db *DB) Select(query interface{}, args ...interface{}) (tx *DB) { return nil }

func (db *DB) Omit(columns ...string) (tx *DB) { return nil }

func (db *DB) Count(count *int64) (tx *DB) { return nil }

func (db *DB) Session(config *Session) *DB { return nil }

type Config struct {
}

type Statement struct {
	*DB
}

func (stmt *Statement) WriteByte(c byte) error { return nil }

func (stmt *Statement) WriteString(str string) (int, error) { return 0, nil }

func (stmt *Statement) WriteQuoted(value interface{}) {}

func (stmt *Statement) AddVar(writer clause.Writer, vars ...interface{}) {}

type Session struct {
	DryRun                 bool
	PrepareStmt            bool
	NewDB                  bool
	SkipHooks              bool
	SkipDefaultTransaction bool
	AllowGlobalUpdate      bool
	FullSaveAssociations   bool
	QueryFields            bool
	Context                context.Context
	CreateBatchSize        int
}

var ErrDuplicatedKey = errors.New("duplicated key not allowed")

var ErrRecordNotFound = logger.ErrRecordNotFound

func Expr(expr string, args ...interface{}) clause.Expr { return clause.Expr{} }
