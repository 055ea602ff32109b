// Package sqlgraph is a stub of entgo.io/ent@v0.14.5 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sqlgraph

import (
	"context"
	"database/sql/driver"

	"entgo.io/ent/dialect"
)

type (
	FieldSpec struct {
		Column string
		Value  driver.Value // value to be stored.
	}
)

type (
	CreateSpec struct {
		Table  string
		Schema string
		ID     *FieldSpec
		Fields []*FieldSpec
	}

	BatchCreateSpec struct {
		Nodes []*CreateSpec
	}
)

func NewCreateSpec(table string, id *FieldSpec) *CreateSpec { return nil }

func CreateNode(ctx context.Context, drv dialect.Driver, spec *CreateSpec) error { return nil }

func BatchCreate(ctx context.Context, drv dialect.Driver, spec *BatchCreateSpec) error { return nil }
