// Package xorm is a stub of xorm.io/xorm@v1.3.9 for analyzer tests: signatures mirror the real API (the subset the catalog and the tests use).
package xorm

import "database/sql"

// Engine is a database handle.
type Engine struct{}

// Session is a unit of work (a transaction once begun).
type Session struct{}

// NewEngine opens an engine.
func NewEngine(driverName string, dataSourceName string) (*Engine, error) { return nil, nil }

// NewSession returns a session.
func (engine *Engine) NewSession() *Session { return nil }

// Insert inserts beans.
func (engine *Engine) Insert(beans ...interface{}) (int64, error) { return 0, nil }

// InsertOne inserts one bean.
func (engine *Engine) InsertOne(bean interface{}) (int64, error) { return 0, nil }

// Update updates records.
func (engine *Engine) Update(bean interface{}, condiBeans ...interface{}) (int64, error) {
	return 0, nil
}

// Delete deletes records.
func (engine *Engine) Delete(beans ...interface{}) (int64, error) { return 0, nil }

// Incr adds arg to column on update.
func (engine *Engine) Incr(column string, arg ...interface{}) *Session { return nil }

// Decr subtracts arg from column on update.
func (engine *Engine) Decr(column string, arg ...interface{}) *Session { return nil }

// Exec runs raw SQL.
func (engine *Engine) Exec(sqlOrArgs ...interface{}) (sql.Result, error) { return nil, nil }

// Get reads one record into bean.
func (engine *Engine) Get(beans ...interface{}) (bool, error) { return false, nil }

// Insert inserts beans.
func (session *Session) Insert(beans ...interface{}) (int64, error) { return 0, nil }

// InsertOne inserts one bean.
func (session *Session) InsertOne(bean interface{}) (int64, error) { return 0, nil }

// InsertMulti inserts a slice of beans.
func (session *Session) InsertMulti(rowsSlicePtr interface{}) (int64, error) { return 0, nil }

// Update updates records.
func (session *Session) Update(bean interface{}, condiBean ...interface{}) (int64, error) {
	return 0, nil
}

// Delete deletes records.
func (session *Session) Delete(beans ...interface{}) (int64, error) { return 0, nil }

// Incr adds arg to column on update.
func (session *Session) Incr(column string, arg ...interface{}) *Session { return nil }

// Decr subtracts arg from column on update.
func (session *Session) Decr(column string, arg ...interface{}) *Session { return nil }

// Exec runs raw SQL.
func (session *Session) Exec(sqlOrArgs ...interface{}) (sql.Result, error) { return nil, nil }

// Get reads one record into bean.
func (session *Session) Get(beans ...interface{}) (bool, error) { return false, nil }

// Where starts a session with a condition.
func (engine *Engine) Where(query interface{}, args ...interface{}) *Session { return nil }

// ID starts a session for the row with that primary key.
func (engine *Engine) ID(id interface{}) *Session { return nil }

// Cols starts a session that writes only those columns.
func (engine *Engine) Cols(columns ...string) *Session { return nil }

// MustCols starts a session that writes those columns even when zero.
func (engine *Engine) MustCols(columns ...string) *Session { return nil }

// Where adds a condition.
func (session *Session) Where(query interface{}, args ...interface{}) *Session { return nil }

// ID selects the row with that primary key.
func (session *Session) ID(id interface{}) *Session { return nil }

// Cols writes only those columns.
func (session *Session) Cols(columns ...string) *Session { return nil }

// MustCols writes those columns even when zero.
func (session *Session) MustCols(columns ...string) *Session { return nil }
