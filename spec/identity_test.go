package spec

import (
	"reflect"
	"strings"
	"testing"
)

func TestKeyIdentity(t *testing.T) {
	tests := []struct {
		name     string
		consumer string // the consumer's YAML, indented by four
		want     string
		key, fp  Position // positions of key and fingerprint
	}{
		{
			"declared fields",
			"    message: {fields: {order_id: string, sku: string, quantity: int64}}\n    key: [order_id, sku]\n    fingerprint: [quantity]\n    effect: sql",
			"idem-key/1 consumer=deduct_inventory key=order_id:string,sku:string encoding=v1 fingerprint=quantity:int64",
			Position{"idem.yaml", 8, 10}, Position{"idem.yaml", 9, 18},
		},
		{
			"default fingerprint: every field",
			"    message: {fields: {order_id: string, at: time, id: uuid}}\n    key: [id]\n    effect: sql",
			"idem-key/1 consumer=deduct_inventory key=id:uuid encoding=v1 fingerprint=order_id:string,at:time,id:uuid",
			Position{"idem.yaml", 8, 10}, Position{},
		},
		{
			"no fingerprint",
			"    message: {fields: {order_id: string}}\n    key: [order_id]\n    fingerprint: []\n    effect: sql",
			"idem-key/1 consumer=deduct_inventory key=order_id:string encoding=v1 fingerprint=none",
			Position{"idem.yaml", 8, 10}, Position{"idem.yaml", 9, 18},
		},
		{
			"key version 2: a new namespace",
			"    key_version: 2\n    message: {fields: {order_id: string}}\n    key: [order_id]\n    effect: sql",
			"idem-key/1 consumer=deduct_inventory@v2 key=order_id:string encoding=v1 fingerprint=order_id:string",
			Position{"idem.yaml", 9, 10}, Position{},
		},
		{
			"hash tag",
			"    message: {fields: {order_id: string, user-id: int64}}\n    key: [order_id]\n    effect: redis\n    hash_tag: user-id",
			"idem-key/1 consumer=deduct_inventory key=order_id:string encoding=v1 fingerprint=order_id:string,user-id:int64 hash_tag=user-id:int64",
			Position{"idem.yaml", 8, 10}, Position{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\npackage: p\ndialect: sqlite\nconsumers:\n  - name: deduct_inventory\n" + tt.consumer + "\n"
			src = strings.Replace(src, "  - name: deduct_inventory\n", "  - name: deduct_inventory\n    topic: t\n", 1)
			s, err := Parse("idem.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			c := &s.Consumers[0]
			got := c.KeyIdentity()
			if got.String() != tt.want {
				t.Errorf("KeyIdentity = %s\nwant         %s", got, tt.want)
			}
			back, err := ParseKeyIdentity(got.String())
			if err != nil || back != got {
				t.Errorf("ParseKeyIdentity(%s) = %+v, %v", got, back, err)
			}
			if c.KeyPos != tt.key || c.FingerprintPos != tt.fp {
				t.Errorf("positions: key %v, fingerprint %v; want %v, %v", c.KeyPos, c.FingerprintPos, tt.key, tt.fp)
			}
		})
	}
}

// TestKeyIdentityGoTypes: the fields of a message.type have their Go types.
func TestKeyIdentityGoTypes(t *testing.T) {
	s, err := Load("testdata/shop/idem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{s.Consumers[0].KeyIdentity().String(), s.Consumers[1].KeyIdentity().String()}
	want := []string{
		"idem-key/1 consumer=deduct_inventory key=order_id:events.OrderID,sku:string encoding=v1 fingerprint=quantity:int64,price:float64,message_id:string,Attempt:int32",
		"idem-key/1 consumer=add_points key=order_id:string,at:time.Time encoding=v1 fingerprint=order_id:string,user_id:string,points:uint32,raw:[]byte,paid:bool,at:time.Time,count:int,total:uint64 hash_tag=user_id:string",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("identities:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseKeyIdentity(t *testing.T) {
	for _, s := range []string{
		"",
		"idem-key/2 consumer=x key=a:string encoding=v1 fingerprint=none",
		"idem-key/1 consumer=x key=a:string encoding=v1",
		"idem-key/1 consumer=x key=a:string encoding=v1 fingerprint=none colour=blue",
		"idem-key/1 consumer=x consumer=y key=a:string encoding=v1 fingerprint=none",
		"idem-key/1 consumer=x key=a:string  encoding=v1 fingerprint=none",
		"idem-key/1 consumer=x key=a\x1b[2J:string encoding=v1 fingerprint=none",
		"idem-key/1 consumer=x key=a:stríng encoding=v1 fingerprint=none",
	} {
		if k, err := ParseKeyIdentity(s); err == nil {
			t.Errorf("ParseKeyIdentity(%q) = %+v, want an error", s, k)
		}
	}
}

func TestFieldNames(t *testing.T) {
	for in, want := range map[string][]string{
		"none":                               nil,
		"a:string":                           {"a"},
		"a:string,b-c:int64":                 {"a", "b-c"},
		"a:pkg.Pair[int,string],b:time.Time": {"a", "b"},
	} {
		if got := FieldNames(in); !reflect.DeepEqual(got, want) {
			t.Errorf("FieldNames(%q) = %q, want %q", in, got, want)
		}
	}
}
