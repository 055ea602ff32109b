// Package pgconn is a stub of github.com/jackc/pgx/v5@v5.12.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pgconn

type CommandTag struct {
}

func (ct CommandTag) RowsAffected() int64 { return 0 }

func (ct CommandTag) String() string { return "" }

func (ct CommandTag) Insert() bool { return false }

func (ct CommandTag) Update() bool { return false }

func (ct CommandTag) Delete() bool { return false }

func (ct CommandTag) Select() bool { return false }

func NewCommandTag(s string) CommandTag { return CommandTag{} }

type PgError struct {
	Severity            string
	SeverityUnlocalized string
	Code                string
	Message             string
	Detail              string
	Hint                string
	Position            int32
	InternalPosition    int32
	InternalQuery       string
	Where               string
	SchemaName          string
	TableName           string
	ColumnName          string
	DataTypeName        string
	ConstraintName      string
	File                string
	Line                int32
	Routine             string
}

func (pe *PgError) Error() string { return "" }

func (pe *PgError) SQLState() string { return "" }

type StatementDescription struct {
	Name      string
	SQL       string
	ParamOIDs []uint32
}

type FieldDescription struct {
	Name                 string
	TableOID             uint32
	TableAttributeNumber uint16
	DataTypeOID          uint32
	DataTypeSize         int16
	TypeModifier         int32
	Format               int16
}
