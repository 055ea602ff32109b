package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/idemkit/idem/spec/modfs"
)

// specBuilder shortens the expected values: positions in one file.
type specBuilder string

func (b specBuilder) at(line, col int) Position {
	return Position{File: string(b), Line: line, Col: col}
}

func (b specBuilder) field(name, typ, goName string, line, col int) Field {
	return Field{Name: name, Type: typ, GoName: goName, Pos: b.at(line, col)}
}

// goField is a field of an existing Go type: its position is message.type's.
func (b specBuilder) goField(name, typ, goName, goField string, line, col int) Field {
	return Field{Name: name, Type: typ, GoName: goName, GoField: goField, Pos: b.at(line, col)}
}

// defaults is a Spec of file with every default applied.
func (b specBuilder) defaults(pkg, dialect string) Spec {
	return Spec{
		Version:    1,
		Package:    pkg,
		Output:     ".",
		SQLPackage: "database/sql",
		Dialect:    dialect,
		Table:      "idem_keys",
		Migrations: Migrations{Dir: "./migrations/idem", Format: "golang-migrate", Version: 1},
		Retention:  168 * time.Hour,
		File:       string(b),
		Dir:        "testdata/valid",
	}
}

func TestValid(t *testing.T) {
	tests := map[string]func() Spec{
		"testdata/valid/minimal.yaml": func() Spec {
			b := specBuilder("testdata/valid/minimal.yaml")
			s := b.defaults("orders", "sqlite")
			s.Consumers = []Consumer{{
				Name: "deduct_inventory",
				Message: Message{
					Fields: []Field{
						b.field("order_id", "string", "OrderID", 8, 9),
						b.field("sku", "string", "Sku", 9, 9),
						b.field("quantity", "int64", "Quantity", 10, 9),
					},
					Pos: b.at(8, 9),
				},
				Key:         []string{"order_id", "sku"},
				Fingerprint: []string{"order_id", "sku", "quantity"},
				Effect:      "sql",
				Pos:         b.at(5, 5),
			}}
			return s
		},
		"testdata/valid/reference.yaml": func() Spec {
			b := specBuilder("testdata/valid/reference.yaml")
			s := b.defaults("orders", "postgres")
			s.Output = "./orders"
			s.Consumers = []Consumer{
				{
					Name:  "deduct_inventory",
					Topic: "orders.created",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 19, 9),
							b.field("sku", "string", "Sku", 20, 9),
							b.field("quantity", "int64", "Quantity", 21, 9),
						},
						Pos: b.at(19, 9),
					},
					Key:         []string{"order_id", "sku"},
					Fingerprint: []string{"quantity"},
					Effect:      "sql",
					Pos:         b.at(15, 5),
				},
				{
					Name: "send_sms",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 26, 24),
							b.field("phone", "string", "Phone", 26, 42),
							b.field("template", "string", "Template", 26, 57),
						},
						Pos: b.at(26, 23),
					},
					Key:         []string{"order_id", "template"},
					Fingerprint: []string{"order_id", "phone", "template"},
					Effect:      "external",
					Store:       "redis",
					Lease:       30 * time.Second,
					Delivery:    "at-least-once",
					OnError:     "release",
					Pos:         b.at(25, 5),
				},
				{
					Name: "add_points_redis",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 34, 24),
							b.field("user_id", "string", "UserID", 34, 42),
							b.field("points", "int64", "Points", 34, 59),
						},
						Pos: b.at(34, 23),
					},
					Key:         []string{"order_id"},
					Fingerprint: []string{"order_id", "user_id", "points"},
					Effect:      "redis",
					HashTag:     "user_id",
					Pos:         b.at(33, 5),
				},
			}
			return s
		},
		"testdata/valid/sql.yaml": func() Spec {
			b := specBuilder("testdata/valid/sql.yaml")
			s := b.defaults("shop", "postgres")
			s.Output = "./gen/shop"
			s.SQLPackage = "pgx/v5"
			s.Table = "shop_idem_keys"
			s.Migrations = Migrations{Dir: "./db/migrations", Format: "goose", Version: 20240101}
			s.Retention = 720 * time.Hour
			s.Consumers = []Consumer{
				{
					Name:  "deduct_inventory",
					Topic: "orders.created",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 19, 9),
							b.field("sku", "string", "Sku", 20, 9),
							b.field("quantity", "int64", "Quantity", 21, 9),
							b.field("created_at", "time", "CreatedAt", 22, 9),
						},
						Pos: b.at(19, 9),
					},
					Key:         []string{"order_id", "sku"},
					Fingerprint: []string{"quantity"},
					Effect:      "sql",
					Pos:         b.at(15, 5),
				},
				{
					Name:  "add_points",
					Topic: "orders.paid",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 30, 9),
							b.field("user_id", "uuid", "UserID", 31, 9),
							b.field("points", "int32", "Points", 32, 9),
						},
						Pos: b.at(30, 9),
					},
					Key:         []string{"order_id"},
					Fingerprint: []string{"order_id", "user_id", "points"},
					Effect:      "sql",
					Retention:   24 * time.Hour,
					Pos:         b.at(26, 5),
				},
				{
					Name:  "update_stats",
					Topic: "orders.paid",
					Message: Message{
						Fields: []Field{
							b.field("message_id", "string", "MessageID", 40, 9),
							b.field("day", "time", "Day", 41, 9),
							b.field("shop_id", "uint64", "ShopID", 42, 9),
							b.field("amount", "float64", "Amount", 43, 9),
							b.field("paid", "bool", "Paid", 44, 9),
							b.field("raw", "bytes", "Raw", 45, 9),
							b.field("region", "int", "Region", 46, 9),
							b.field("units", "uint32", "Units", 47, 9),
						},
						Pos: b.at(40, 9),
					},
					Key:         []string{"message_id", "day", "shop_id"},
					Fingerprint: []string{}, // explicitly none
					Effect:      "sql",
					Pos:         b.at(36, 5),
				},
			}
			return s
		},
		"testdata/valid/redis.yaml": func() Spec {
			b := specBuilder("testdata/valid/redis.yaml")
			s := b.defaults("points", "")
			s.Migrations.Format = "plain"
			s.Consumers = []Consumer{
				{
					Name: "add_points_redis",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 8, 24),
							b.field("user_id", "string", "UserID", 8, 42),
							b.field("points", "int64", "Points", 8, 59),
						},
						Pos: b.at(8, 23),
					},
					Key:         []string{"order_id"},
					Fingerprint: []string{"order_id", "user_id", "points"},
					Effect:      "redis",
					HashTag:     "user_id",
					Pos:         b.at(7, 5),
				},
				{
					Name: "update_stats_redis",
					Message: Message{
						Fields: []Field{
							b.field("message_id", "string", "MessageID", 15, 9),
							b.field("day", "time", "Day", 16, 9),
							b.field("amount", "float64", "Amount", 17, 9),
						},
						Pos: b.at(15, 9),
					},
					Key:         []string{"message_id", "day"},
					Fingerprint: []string{"message_id", "day", "amount"},
					Effect:      "redis",
					Pos:         b.at(12, 5),
				},
				{
					Name: "deduct_inventory_redis",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 21, 24),
							b.field("sku", "string", "Sku", 21, 42),
							b.field("quantity", "int64", "Quantity", 21, 55),
						},
						Pos: b.at(21, 23),
					},
					Key:         []string{"order_id", "sku"},
					Fingerprint: []string{"order_id", "sku", "quantity"},
					Effect:      "redis",
					Retention:   48 * time.Hour,
					Pos:         b.at(20, 5),
				},
			}
			return s
		},
		"testdata/valid/external.yaml": func() Spec {
			b := specBuilder("testdata/valid/external.yaml")
			s := b.defaults("notify", "mysql")
			s.Retention = 72 * time.Hour
			sms := func(line int) []Field {
				return []Field{
					b.field("order_id", "string", "OrderID", line, 24),
					b.field("phone", "string", "Phone", line, 42),
					b.field("template", "string", "Template", line, 57),
				}
			}
			s.Consumers = []Consumer{
				{
					Name:        "send_sms",
					Topic:       "orders.shipped",
					Message:     Message{Fields: sms(9), Pos: b.at(9, 23)},
					Key:         []string{"order_id", "template"},
					Fingerprint: []string{"order_id", "phone", "template"},
					Effect:      "external",
					Store:       "sql",
					Lease:       30 * time.Second,
					Delivery:    "at-least-once",
					OnError:     "release",
					Pos:         b.at(7, 5),
				},
				{
					Name:        "send_sms_once",
					Message:     Message{Fields: sms(13), Pos: b.at(13, 23)},
					Key:         []string{"order_id", "template"},
					Fingerprint: []string{"phone"},
					Effect:      "external",
					Store:       "redis",
					Lease:       2 * time.Minute,
					Delivery:    "at-most-once",
					OnError:     "keep",
					Retention:   time.Hour,
					Pos:         b.at(12, 5),
				},
				{
					Name: "send_receipt_email",
					Message: Message{
						Fields: []Field{
							b.field("order_id", "string", "OrderID", 23, 24),
							b.field("email", "string", "Email", 23, 42),
						},
						Pos: b.at(23, 23),
					},
					Key:         []string{"order_id"},
					Fingerprint: []string{"order_id", "email"},
					Effect:      "external",
					Store:       "sql",
					Lease:       90 * time.Second,
					Delivery:    "at-least-once",
					OnError:     "release",
					Pos:         b.at(22, 5),
				},
			}
			return s
		},
		"testdata/valid/anchors.yaml": func() Spec {
			b := specBuilder("testdata/valid/anchors.yaml")
			s := b.defaults("notify", "sqlite")
			// All three share the anchored message, so its positions.
			msg := Message{
				Fields: []Field{
					b.field("order_id", "string", "OrderID", 9, 16),
					b.field("phone", "string", "Phone", 9, 34),
					b.field("template", "string", "Template", 9, 49),
				},
				Pos: b.at(9, 15),
			}
			all := []string{"order_id", "phone", "template"}
			s.Consumers = []Consumer{
				{
					Name: "send_sms", Message: msg, Key: []string{"order_id", "template"}, Fingerprint: all,
					Effect: "external", Store: "sql", Lease: 45 * time.Second, Delivery: "at-least-once", OnError: "keep",
					Pos: b.at(6, 5),
				},
				{
					// Merged from send_sms; name and lease overridden.
					Name: "send_sms_again", Message: msg, Key: []string{"order_id", "template"}, Fingerprint: all,
					Effect: "external", Store: "sql", Lease: time.Minute, Delivery: "at-least-once", OnError: "keep",
					Pos: b.at(14, 5),
				},
				{
					Name: "send_sms_copy", Message: msg, Key: []string{"order_id"}, Fingerprint: all,
					Effect: "external", Store: "sql", Lease: 30 * time.Second, Delivery: "at-least-once", OnError: "release",
					Pos: b.at(17, 5),
				},
			}
			return s
		},
		"testdata/shop/idem.yaml": func() Spec {
			b := specBuilder("testdata/shop/idem.yaml")
			s := b.defaults("orders", "postgres")
			s.Dir = "testdata/shop"
			s.Consumers = []Consumer{
				{
					Name: "deduct_inventory",
					Message: Message{
						Type:     "example.com/shop/events.OrderCreated",
						Resolved: &GoType{PkgPath: "example.com/shop/events", PkgName: "events", Name: "OrderCreated"},
						// Items ([]Item), Customer ([16]byte) and Note (*string)
						// are not supported; Secret is json:"-".
						Fields: []Field{
							b.goField("message_id", "string", "MessageID", "Meta.MessageID", 8, 13),
							b.goField("Attempt", "int32", "Attempt", "Meta.Attempt", 8, 13),
							b.goField("order_id", "string", "OrderID", "OrderID", 8, 13),
							b.goField("sku", "string", "SKU", "SKU", 8, 13),
							b.goField("quantity", "int64", "Quantity", "Quantity", 8, 13),
							b.goField("price", "float64", "Price", "Price", 8, 13),
							b.goField("created_at", "time", "CreatedAt", "CreatedAt", 8, 13),
						},
						Pos: b.at(8, 13),
					},
					Key:         []string{"order_id", "sku"},
					Fingerprint: []string{"quantity", "price", "message_id", "Attempt"},
					Effect:      "sql",
					Pos:         b.at(6, 5),
				},
				{
					Name: "add_points",
					Message: Message{
						Type:     "example.com/shop/events.PointsAdded",
						Resolved: &GoType{PkgPath: "example.com/shop/events", PkgName: "events", Name: "PointsAdded"},
						Fields: []Field{
							b.goField("order_id", "string", "OrderID", "OrderID", 13, 21),
							b.goField("user_id", "string", "UserID", "UserID", 13, 21),
							b.goField("points", "uint32", "Points", "Points", 13, 21),
							b.goField("raw", "bytes", "Raw", "Raw", 13, 21),
							b.goField("paid", "bool", "Paid", "Paid", 13, 21),
							b.goField("at", "time", "At", "At", 13, 21),
							b.goField("count", "int", "Count", "Count", 13, 21),
							b.goField("total", "uint64", "Total", "Total", 13, 21),
						},
						Pos: b.at(13, 21),
					},
					Key:         []string{"order_id", "at"},
					Fingerprint: []string{"order_id", "user_id", "points", "raw", "paid", "at", "count", "total"},
					Effect:      "redis",
					HashTag:     "user_id",
					Pos:         b.at(12, 5),
				},
			}
			return s
		},
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			got, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			w := want()
			for i := range w.Consumers {
				w.Consumers[i].KeyVersion = DefaultKeyVersion
			}
			// Positions of settings and the Go types of fields are
			// TestKeyIdentity's.
			ignore := cmpopts.IgnoreFields(Consumer{}, "KeyPos", "FingerprintPos", "HashTagPos")
			if diff := cmp.Diff(&w, got, ignore, cmpopts.IgnoreFields(Field{}, "GoType")); diff != "" {
				t.Errorf("Load(%s) mismatch (-want +got):\n%s", file, diff)
			}
		})
	}
}

// TestParseDoesNotResolve: Parse leaves message.type alone (no go/packages).
func TestParseDoesNotResolve(t *testing.T) {
	s, err := Parse("testdata/shop/idem.yaml", []byte(`version: 1
package: orders
consumers:
  - name: add_points
    message: {type: example.com/nowhere/events.PointsAdded}
    key: [order_id]
    effect: redis
`))
	if err != nil {
		t.Fatal(err)
	}
	m := s.Consumers[0].Message
	if m.Resolved != nil || m.Fields != nil || s.Consumers[0].Fingerprint != nil {
		t.Errorf("Parse resolved the message: %+v, fingerprint %q", m, s.Consumers[0].Fingerprint)
	}
	if err := Resolve(s); err == nil || !strings.Contains(err.Error(), "cannot load package example.com/nowhere/events") {
		t.Errorf("Resolve = %v, want a load error", err)
	}
}

// TestNoModule: without a go.mod above the spec, paths must stay in its folder.
func TestNoModule(t *testing.T) {
	dir := t.TempDir()
	if _, ok, _ := modfs.Root(dir); ok {
		t.Skipf("%s is inside a module", dir)
	}
	src := `version: 1
package: orders
output: ./gen
dialect: sqlite
migrations: {dir: ../migrations}
consumers:
  - name: deduct_inventory
    message: {fields: {order_id: string}}
    key: [order_id]
    effect: sql
`
	_, err := Parse(dir+"/idem.yaml", []byte(src))
	want := dir + `/idem.yaml:5:19: migrations.dir: "../migrations" is outside the spec's folder (there is no go.mod above it)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"order_id":         "OrderID",
		"sku":              "Sku",
		"send_sms":         "SendSms",
		"deduct_inventory": "DeductInventory",
		"user_api_url":     "UserAPIURL",
		"http_status":      "HTTPStatus",
		"json":             "JSON",
		"utf8_name":        "UTF8Name",
		"a_b":              "AB",
		"a__b":             "AB",
		"ab_":              "Ab",
		"x_handler":        "XHandler",
		"a_1":              "A1",
		"ids":              "Ids",
		"uuid":             "UUID",
		"xmpp_xsrf_xss":    "XMPPXSRFXSS",
		"":                 "",
		// JSON names that are not snake_case: one rule for all.
		"order-id":   "OrderID",
		"orderId":    "OrderID",
		"orderID":    "OrderID",
		"order.id":   "OrderID",
		"ORDER_ID":   "OrderID",
		"OrderID":    "OrderID",
		"_id":        "ID",
		"HTTPServer": "HTTPServer",
		"httpServer": "HTTPServer",
		"sha256Sum":  "Sha256Sum",
		"utf8Name":   "UTF8Name",
		"SKU":        "Sku",
		"unit-price": "UnitPrice",
		"x.y-z_w":    "XYZW",
		"a1B":        "A1B",
		"2fa":        "2fa",
		"_":          "",
		"-.-":        "",
		"userIDs":    "UserIDs",
		"apiURLPath": "APIURLPath",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMessageField(t *testing.T) {
	m := Message{Fields: []Field{{Name: "a", Type: "string"}, {Name: "b", Type: "int"}}}
	if f, ok := m.Field("b"); !ok || f.Type != "int" {
		t.Errorf("Field(b) = %v, %v", f, ok)
	}
	if _, ok := m.Field("c"); ok {
		t.Error("Field(c) found")
	}
}
