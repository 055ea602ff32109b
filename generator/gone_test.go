package generator

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestGoneConsumers: a consumer gone from the spec is reported with its
// handler (when Plan deletes it), its stub (when the stub declares its
// effect, as a method or as an apply function of an older idemgen) and the
// new consumers it may have been renamed to.
func TestGoneConsumers(t *testing.T) {
	s := loadCase(t, "shop_postgres_golang_migrate")
	files, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	stubOf := map[string]string{
		"method":   "package orders\n\nfunc (s *Service) SendSms() error { return nil }\n",
		"function": "package orders\n\nfunc applySendSms() error { return nil }\n",
		"other":    "package orders\n\n// moved elsewhere\n",
		"broken":   "package orders\n\nfunc (s *Service) SendSms( {\n",
	}
	tests := []struct {
		name   string
		rename string // the spec's new name for send_sms; "" removes it
		stub   string // a key of stubOf, or "" for no stub
		want   Gone
	}{
		{"removed, method stub", "", "method", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go", Stub: "orders/send_sms_apply.go", Effect: "effect method SendSms"}},
		{"removed, function stub", "", "function", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go", Stub: "orders/send_sms_apply.go", Effect: "apply function applySendSms"}},
		{"removed, stub emptied", "", "other", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go"}},
		{"removed, stub broken", "", "broken", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go"}},
		{"removed, no stub", "", "", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go"}},
		{"renamed", "notify_sms", "method", Gone{Consumer: "send_sms", Handler: "orders/send_sms_idem.go", Stub: "orders/send_sms_apply.go", Effect: "effect method SendSms", Renamed: []string{"notify_sms"}, SameKey: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Write(dir, files); err != nil {
				t.Fatal(err)
			}
			stub := filepath.Join(dir, "orders", "send_sms_apply.go")
			if err := os.Remove(stub); err != nil {
				t.Fatal(err)
			}
			if tt.stub != "" {
				if err := os.WriteFile(stub, []byte(stubOf[tt.stub]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			next := loadCase(t, "shop_postgres_golang_migrate")
			var kept []int
			for i, c := range next.Consumers {
				if c.Name != "send_sms" {
					kept = append(kept, i)
				} else if tt.rename != "" {
					next.Consumers[i].Name = tt.rename
					kept = append(kept, i)
				}
			}
			consumers := next.Consumers
			next.Consumers = nil
			for _, i := range kept {
				next.Consumers = append(next.Consumers, consumers[i])
			}
			nextFiles, err := Generate(next)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := Plan(dir, nextFiles, next.Output)
			if err != nil {
				t.Fatal(err)
			}
			got, err := GoneConsumers(dir, next, changes)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, []Gone{tt.want}) {
				t.Errorf("GoneConsumers = %+v\nwant [%+v]", got, tt.want)
			}

			// Once the handler is removed, the stub alone is still reported.
			if _, err := Write(dir, nextFiles, next.Output); err != nil {
				t.Fatal(err)
			}
			changes, err = Plan(dir, nextFiles, next.Output)
			if err != nil {
				t.Fatal(err)
			}
			got, err = GoneConsumers(dir, next, changes)
			if err != nil {
				t.Fatal(err)
			}
			var want []Gone
			if tt.want.Stub != "" {
				want = []Gone{{Consumer: "send_sms", Stub: tt.want.Stub, Effect: tt.want.Effect}}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after Write, GoneConsumers = %+v\nwant %+v", got, want)
			}
		})
	}
}
