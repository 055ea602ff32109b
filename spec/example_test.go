package spec_test

import (
	"fmt"

	"github.com/idemkit/idem/spec"
)

func ExampleParse() {
	s, err := spec.Parse("idem.yaml", []byte(`version: 1
package: orders
dialect: postgres
consumers:
  - name: deduct_inventory
    message:
      fields:
        order_id: string
        sku: string
        quantity: int64
    key: [order_id, sku]
    effect: sql
  - name: send_sms
    message: {fields: {order_id: string, phone: string}}
    key: [order_id]
    effect: external
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Consumers {
		fmt.Printf("%s (%s): key %v, fingerprint %v, store %q, lease %v\n",
			spec.GoName(c.Name), c.Effect, c.Key, c.Fingerprint, c.Store, c.Lease)
	}
	// Output:
	// DeductInventory (sql): key [order_id sku], fingerprint [order_id sku quantity], store "", lease 0s
	// SendSms (external): key [order_id], fingerprint [order_id phone], store "sql", lease 30s
}

func ExampleParse_errors() {
	_, err := spec.Parse("idem.yaml", []byte(`version: 1
package: orders
dialect: postgres
consumers:
  - name: deduct_inventory
    message: {fields: {order_id: string, quantity: int64}}
    key: [order_id, sku]
    effect: sql
    lease: 30s
`))
	fmt.Println(err)
	// Output:
	// idem.yaml:7:21: consumers[0].key[1]: field "sku" is not declared in message
	// idem.yaml:9:5: consumers[0].lease: lease applies only to effect: external
}
