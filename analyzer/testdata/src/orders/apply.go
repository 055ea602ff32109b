package orders // want package:"idemfacts"

import (
	"context"
	"database/sql"
)

// ApplyDeductInventory is the user's apply function: its effect runs inside
// store.Do, so it is no finding, only a fact.
func ApplyDeductInventory(ctx context.Context, tx *sql.Tx, m *DeductInventory) error { // want ApplyDeductInventory:`effects\(sql.Tx.ExecContext "UPDATE stock SET qty = qty - \$1 WHERE sku = \$2"\)`
	_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, m.Quantity, m.Sku)
	return err
}
