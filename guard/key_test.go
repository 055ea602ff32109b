package guard_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

func TestKeyBuilderV1Encoding(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		name  string
		build func(b *guard.KeyBuilder)
		want  string
	}{
		{"no field", func(*guard.KeyBuilder) {}, "v1"},
		{"string", func(b *guard.KeyBuilder) { b.String("abc") }, "v13:abc"},
		{"empty string", func(b *guard.KeyBuilder) { b.String("") }, "v10:"},
		{"string length in bytes", func(b *guard.KeyBuilder) { b.String("héllo") }, "v16:héllo"},
		{"string with a colon", func(b *guard.KeyBuilder) { b.String("1:a") }, "v13:1:a"},
		{"int", func(b *guard.KeyBuilder) { b.Int(-42) }, "v13:-42"},
		{"int zero", func(b *guard.KeyBuilder) { b.Int(0) }, "v11:0"},
		{"int min", func(b *guard.KeyBuilder) { b.Int(math.MinInt64) }, "v120:-9223372036854775808"},
		{"uint max", func(b *guard.KeyBuilder) { b.Uint(math.MaxUint64) }, "v120:18446744073709551615"},
		{"bool true", func(b *guard.KeyBuilder) { b.Bool(true) }, "v11:t"},
		{"bool false", func(b *guard.KeyBuilder) { b.Bool(false) }, "v11:f"},
		{"time in UTC with nanoseconds", func(b *guard.KeyBuilder) { b.Time(time.Date(2024, 3, 1, 12, 30, 0, 123456789, cet)) },
			"v130:2024-03-01T11:30:00.123456789Z"},
		{"time on a whole second", func(b *guard.KeyBuilder) { b.Time(time.Date(2024, 3, 1, 12, 30, 0, 0, cet)) },
			"v120:2024-03-01T11:30:00Z"},
		{"uuid lowercased", func(b *guard.KeyBuilder) { b.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF") },
			"v136:6f9619ff-8b86-d011-b42d-00c04fc964ff"},
		{"fields in order", func(b *guard.KeyBuilder) { b.String("a"); b.Int(1); b.Bool(true); b.Uint(7) }, "v11:a1:11:t1:7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b guard.KeyBuilder
			tt.build(&b)
			if got := b.Key(); got != tt.want {
				t.Errorf("Key() = %q, want %q", got, tt.want)
			}
			if got := b.Key(); got != tt.want {
				t.Errorf("second Key() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKeyHash(t *testing.T) {
	if got, want := guard.KeyHash("v11:a"), sha256.Sum256([]byte("v11:a")); got != want {
		t.Errorf("KeyHash = %x, want SHA-256 %x", got, want)
	}
}

func encodeTuple(fields []string) string {
	var b guard.KeyBuilder
	for _, f := range fields {
		b.String(f)
	}
	return b.Key()
}

// FuzzKeyInjective checks that two different tuples of strings (of 0 to 3
// fields) never encode to the same key.
func FuzzKeyInjective(f *testing.F) {
	seeds := []struct {
		a1, a2, a3, b1, b2, b3 string
		na, nb                 uint8
	}{
		{"a", "b", "", "a", "b", "", 2, 2},
		{"ab", "", "", "a", "b", "", 1, 2},
		{"a", "", "", "a", "", "", 1, 2},
		{"1:a", "", "", "1", ":a", "", 1, 2},
		{"", "", "", "", "", "", 0, 1},
		{"a1:b", "", "", "a", "b", "", 1, 2},
		{"10:aaaaaaaaaa", "", "", "", "", "", 1, 0},
		{"x", "y", "z", "x", "y1:z", "", 3, 2},
		{"2:ab", "", "", "ab", "", "", 1, 1},
	}
	for _, s := range seeds {
		f.Add(s.a1, s.a2, s.a3, s.b1, s.b2, s.b3, s.na, s.nb)
	}
	f.Fuzz(func(t *testing.T, a1, a2, a3, b1, b2, b3 string, na, nb uint8) {
		a := []string{a1, a2, a3}[:na%4]
		b := []string{b1, b2, b3}[:nb%4]
		same := len(a) == len(b)
		for i := 0; same && i < len(a); i++ {
			same = a[i] == b[i]
		}
		ka, kb := encodeTuple(a), encodeTuple(b)
		if !same && ka == kb {
			t.Fatalf("%q and %q both encode to %q", a, b, ka)
		}
		if same && ka != kb {
			t.Fatalf("%q encodes to %q and %q", a, ka, kb)
		}
	})
}

var fingerprintFormat = regexp.MustCompile(`^v1:[0-9a-f]{64}$`)

func TestFingerprint(t *testing.T) {
	sum := func(build func(f *guard.FingerprintBuilder)) string {
		var f guard.FingerprintBuilder
		build(&f)
		return string(f.Sum())
	}
	hexSHA := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

	t.Run("format and exact value", func(t *testing.T) {
		empty := sum(func(*guard.FingerprintBuilder) {})
		if want := "v1:" + hexSHA("v1"); empty != want {
			t.Errorf("empty fingerprint = %s, want %s", empty, want)
		}
		one := sum(func(f *guard.FingerprintBuilder) { f.String("sku", "x") })
		if want := "v1:" + hexSHA("v13:sku1:x"); one != want {
			t.Errorf("fingerprint of sku=x = %s, want %s (SHA-256 of name and value in the key encoding)", one, want)
		}
		for _, s := range []string{empty, one} {
			if !fingerprintFormat.MatchString(s) {
				t.Errorf("fingerprint %q is not v1: and 64 lowercase hex digits", s)
			}
		}
	})
	t.Run("order of fields does not matter", func(t *testing.T) {
		a := sum(func(f *guard.FingerprintBuilder) { f.String("sku", "x"); f.Int("qty", 2); f.Bool("gift", true) })
		b := sum(func(f *guard.FingerprintBuilder) { f.Bool("gift", true); f.Int("qty", 2); f.String("sku", "x") })
		if a != b {
			t.Errorf("fingerprints differ by field order: %s vs %s", a, b)
		}
	})
	t.Run("zero fields are left out", func(t *testing.T) {
		base := sum(func(f *guard.FingerprintBuilder) { f.String("sku", "x") })
		withZeros := sum(func(f *guard.FingerprintBuilder) {
			f.String("note", "")
			f.Int("n", 0)
			f.Uint("u", 0)
			f.Float("p", 0)
			f.Bool("b", false)
			f.Time("at", time.Time{})
			f.UUID("id", "")
			f.Bytes("raw", nil)
			f.String("sku", "x")
		})
		if base != withZeros {
			t.Errorf("zero-valued fields changed the fingerprint: %s vs %s", base, withZeros)
		}
	})
	t.Run("names and values matter", func(t *testing.T) {
		seen := map[string]string{}
		for name, build := range map[string]func(f *guard.FingerprintBuilder){
			"sku=x":         func(f *guard.FingerprintBuilder) { f.String("sku", "x") },
			"sku=y":         func(f *guard.FingerprintBuilder) { f.String("sku", "y") },
			"item=x":        func(f *guard.FingerprintBuilder) { f.String("item", "x") },
			"sku=x qty=1":   func(f *guard.FingerprintBuilder) { f.String("sku", "x"); f.Int("qty", 1) },
			"sku=x qty=-1":  func(f *guard.FingerprintBuilder) { f.String("sku", "x"); f.Int("qty", -1) },
			"sku=xqty=1":    func(f *guard.FingerprintBuilder) { f.String("sku", "xqty=1") },
			"p=1.5":         func(f *guard.FingerprintBuilder) { f.Float("p", 1.5) },
			"raw=\\x00":     func(f *guard.FingerprintBuilder) { f.Bytes("raw", []byte{0}) },
			"at=2024-01-01": func(f *guard.FingerprintBuilder) { f.Time("at", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) },
		} {
			s := sum(build)
			if other, ok := seen[s]; ok {
				t.Errorf("%s and %s have the same fingerprint", name, other)
			}
			seen[s] = name
		}
	})
	t.Run("normalized values", func(t *testing.T) {
		at := time.Date(2024, 1, 1, 12, 0, 0, 5, time.UTC)
		if sum(func(f *guard.FingerprintBuilder) { f.Time("at", at) }) != sum(func(f *guard.FingerprintBuilder) { f.Time("at", at.In(time.FixedZone("X", -7200))) }) {
			t.Error("the same instant in two zones has two fingerprints")
		}
		if sum(func(f *guard.FingerprintBuilder) { f.UUID("id", "ABC-DEF") }) != sum(func(f *guard.FingerprintBuilder) { f.UUID("id", "abc-def") }) {
			t.Error("a UUID's case changes the fingerprint")
		}
	})
	t.Run("Sum does not change the builder", func(t *testing.T) {
		var f guard.FingerprintBuilder
		f.Int("qty", 2)
		f.String("sku", "x")
		first, second := string(f.Sum()), string(f.Sum())
		if first != second {
			t.Errorf("Sum changed between calls: %s vs %s", first, second)
		}
		f.String("extra", "y")
		if string(f.Sum()) == first {
			t.Error("a field added after Sum did not change the fingerprint")
		}
	})
}

func TestProviderKey(t *testing.T) {
	k := guard.ProviderKey("send_sms", "v11:a")
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(k) {
		t.Errorf("ProviderKey = %q, want 64 lowercase hex digits", k)
	}
	if k != guard.ProviderKey("send_sms", "v11:a") {
		t.Error("ProviderKey is not stable")
	}
	for _, other := range [][2]string{{"send_sms", "v11:b"}, {"send_email", "v11:a"}, {"send_sm", "sv11:a"}} {
		if guard.ProviderKey(other[0], other[1]) == k {
			t.Errorf("ProviderKey(%q, %q) collides with ProviderKey(send_sms, v11:a)", other[0], other[1])
		}
	}
}

func TestCanonicalUUID(t *testing.T) {
	got, err := guard.CanonicalUUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")
	if err != nil || got != "6f9619ff-8b86-d011-b42d-00c04fc964ff" {
		t.Errorf("CanonicalUUID = %q, %v", got, err)
	}
	for _, bad := range []string{"", "6f9619ff8b86d011b42d00c04fc964ff", "6f9619ff-8b86-d011-b42d-00c04fc964fg",
		"6f9619ff+8b86-d011-b42d-00c04fc964ff", "00000000-0000-0000-0000-000000000000", strings.Repeat("a", 36)} {
		if _, err := guard.CanonicalUUID(bad); err == nil {
			t.Errorf("CanonicalUUID(%q) = nil error, want one", bad)
		}
	}
}
