// Package mysql is a stub of github.com/go-sql-driver/mysql@v1.10.1 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package mysql

type MySQLError struct {
	Number   uint16
	SQLState [5]byte
	Message  string
}

func (me *MySQLError) Error() string { return "" }

func (me *MySQLError) Is(err error) bool { return false }
