// Package sqlx is a stub of github.com/jmoiron/sqlx@v1.4.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package sqlx

import (
	"context"
	"database/sql"
)

type DB struct {
	*sql.DB
}

func (db *DB) BindNamed(query string, arg interface{}) (string, []interface{}, error) {
	return "", nil, nil
}

func (db *DB) BeginTxx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) { return nil, nil }

func (db *DB) Beginx() (*Tx, error) { return nil, nil }

func (db *DB) MustBegin() *Tx { return nil }

func (db *DB) MustBeginTx(ctx context.Context, opts *sql.TxOptions) *Tx { return nil }

func (db *DB) MustExec(query string, args ...interface{}) sql.Result { return nil }

func (db *DB) MustExecContext(ctx context.Context, query string, args ...interface{}) sql.Result {
	return nil
}

func (db *DB) NamedExec(query string, arg interface{}) (sql.Result, error) { return nil, nil }

func (db *DB) NamedExecContext(ctx context.Context, query string, arg interface{}) (sql.Result, error) {
	return nil, nil
}

func (db *DB) NamedQuery(query string, arg interface{}) (*Rows, error) { return nil, nil }

func (db *DB) NamedQueryContext(ctx context.Context, query string, arg interface{}) (*Rows, error) {
	return nil, nil
}

func (db *DB) Get(dest interface{}, query string, args ...interface{}) error { return nil }

func (db *DB) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (db *DB) Select(dest interface{}, query string, args ...interface{}) error { return nil }

func (db *DB) SelectContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (db *DB) QueryRowx(query string, args ...interface{}) *Row { return nil }

func (db *DB) QueryRowxContext(ctx context.Context, query string, args ...interface{}) *Row {
	return nil
}

func (db *DB) Queryx(query string, args ...interface{}) (*Rows, error) { return nil, nil }

func (db *DB) QueryxContext(ctx context.Context, query string, args ...interface{}) (*Rows, error) {
	return nil, nil
}

func (db *DB) Rebind(query string) string { return "" }

func (db *DB) DriverName() string { return "" }

func (db *DB) Preparex(query string) (*Stmt, error) { return nil, nil }

func (db *DB) PreparexContext(ctx context.Context, query string) (*Stmt, error) { return nil, nil }

func (db *DB) PrepareNamed(query string) (*NamedStmt, error) { return nil, nil }

func (db *DB) PrepareNamedContext(ctx context.Context, query string) (*NamedStmt, error) {
	return nil, nil
}

func (db *DB) Connx(ctx context.Context) (*Conn, error) { return nil, nil }

type Tx struct {
	*sql.Tx
}

func (tx *Tx) BindNamed(query string, arg interface{}) (string, []interface{}, error) {
	return "", nil, nil
}

func (tx *Tx) MustExec(query string, args ...interface{}) sql.Result { return nil }

func (tx *Tx) MustExecContext(ctx context.Context, query string, args ...interface{}) sql.Result {
	return nil
}

func (tx *Tx) NamedExec(query string, arg interface{}) (sql.Result, error) { return nil, nil }

func (tx *Tx) NamedExecContext(ctx context.Context, query string, arg interface{}) (sql.Result, error) {
	return nil, nil
}

func (tx *Tx) NamedQuery(query string, arg interface{}) (*Rows, error) { return nil, nil }

func (tx *Tx) Get(dest interface{}, query string, args ...interface{}) error { return nil }

func (tx *Tx) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (tx *Tx) Select(dest interface{}, query string, args ...interface{}) error { return nil }

func (tx *Tx) SelectContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (tx *Tx) QueryRowx(query string, args ...interface{}) *Row { return nil }

func (tx *Tx) QueryRowxContext(ctx context.Context, query string, args ...interface{}) *Row {
	return nil
}

func (tx *Tx) Queryx(query string, args ...interface{}) (*Rows, error) { return nil, nil }

func (tx *Tx) QueryxContext(ctx context.Context, query string, args ...interface{}) (*Rows, error) {
	return nil, nil
}

func (tx *Tx) Rebind(query string) string { return "" }

func (tx *Tx) DriverName() string { return "" }

func (tx *Tx) Preparex(query string) (*Stmt, error) { return nil, nil }

func (tx *Tx) PrepareNamed(query string) (*NamedStmt, error) { return nil, nil }

type Rows struct {
	*sql.Rows
}

func (r *Rows) StructScan(dest interface{}) error { return nil }

func (r *Rows) MapScan(dest map[string]interface{}) error { return nil }

func (r *Rows) SliceScan() ([]interface{}, error) { return nil, nil }

type Row struct {
}

func (r *Row) Scan(dest ...interface{}) error { return nil }

func (r *Row) StructScan(dest interface{}) error { return nil }

func (r *Row) Err() error { return nil }

type Stmt struct {
	*sql.Stmt
}

func (s *Stmt) MustExec(args ...interface{}) sql.Result { return nil }

func (s *Stmt) MustExecContext(ctx context.Context, args ...interface{}) sql.Result { return nil }

type NamedStmt struct {
}

func (n *NamedStmt) Exec(arg interface{}) (sql.Result, error) { return nil, nil }

func (n *NamedStmt) ExecContext(ctx context.Context, arg interface{}) (sql.Result, error) {
	return nil, nil
}

func (n *NamedStmt) MustExec(arg interface{}) sql.Result { return nil }

func Connect(driverName string, dataSourceName string) (*DB, error) { return nil, nil }

func ConnectContext(ctx context.Context, driverName string, dataSourceName string) (*DB, error) {
	return nil, nil
}

func MustConnect(driverName string, dataSourceName string) *DB { return nil }

func Open(driverName string, dataSourceName string) (*DB, error) { return nil, nil }

func MustOpen(driverName string, dataSourceName string) *DB { return nil }

func NewDb(db *sql.DB, driverName string) *DB { return nil }

func In(query string, args ...interface{}) (string, []interface{}, error) { return "", nil, nil }

func Named(query string, arg interface{}) (string, []interface{}, error) { return "", nil, nil }

func Get(q Queryer, dest interface{}, query string, args ...interface{}) error { return nil }

func Select(q Queryer, dest interface{}, query string, args ...interface{}) error { return nil }

func MustExec(e Execer, query string, args ...interface{}) sql.Result { return nil }

func NamedExec(e Ext, query string, arg interface{}) (sql.Result, error) { return nil, nil }

func GetContext(ctx context.Context, q QueryerContext, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func SelectContext(ctx context.Context, q QueryerContext, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func NamedExecContext(ctx context.Context, e ExtContext, query string, arg interface{}) (sql.Result, error) {
	return nil, nil
}

type Conn struct {
	*sql.Conn
}

func (c *Conn) BeginTxx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) { return nil, nil }

func (c *Conn) GetContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (c *Conn) SelectContext(ctx context.Context, dest interface{}, query string, args ...interface{}) error {
	return nil
}

func (c *Conn) QueryRowxContext(ctx context.Context, query string, args ...interface{}) *Row {
	return nil
}

func (c *Conn) QueryxContext(ctx context.Context, query string, args ...interface{}) (*Rows, error) {
	return nil, nil
}

func (c *Conn) PreparexContext(ctx context.Context, query string) (*Stmt, error) { return nil, nil }

func (c *Conn) Rebind(query string) string { return "" }

type Execer interface {
	Exec(query string, args ...interface{}) (sql.Result, error)
}

type ExecerContext interface {
	ExecContext(ctx context.Context, query string, args ...interface{}) (sql.Result, error)
}

type Ext interface {
	binder
	Queryer
	Execer
}

type ExtContext interface {
	binder
	QueryerContext
	ExecerContext
}

type Queryer interface {
	Query(query string, args ...interface{}) (*sql.Rows, error)
	QueryRowx(query string, args ...interface{}) *Row
	Queryx(query string, args ...interface{}) (*Rows, error)
}

type QueryerContext interface {
	QueryContext(ctx context.Context, query string, args ...interface{}) (*sql.Rows, error)
	QueryRowxContext(ctx context.Context, query string, args ...interface{}) *Row
	QueryxContext(ctx context.Context, query string, args ...interface{}) (*Rows, error)
}

type binder interface {
	BindNamed(string, interface{}) (string, []interface{}, error)
	DriverName() string
	Rebind(string) string
}
