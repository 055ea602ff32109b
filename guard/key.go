package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// KeyBuilder encodes a business key in the v1 key encoding: the literal "v1",
// then for each key field in spec order "<len>:<value>", where len is the
// decimal byte length of value. Integers are base 10, booleans "t" or "f",
// times UTC RFC 3339 with nanoseconds, UUIDs lowercase. The length prefixes
// make the encoding injective: two different field tuples never give the same
// key. Generated IdempotencyKey methods use it; the zero value is ready.
type KeyBuilder struct {
	buf []byte
}

func (b *KeyBuilder) add(v string) {
	if b.buf == nil {
		b.buf = append(make([]byte, 0, 16+len(v)), "v1"...)
	}
	b.buf = strconv.AppendInt(b.buf, int64(len(v)), 10)
	b.buf = append(b.buf, ':')
	b.buf = append(b.buf, v...)
}

// String adds a string field.
func (b *KeyBuilder) String(v string) { b.add(v) }

// Int adds a signed integer field.
func (b *KeyBuilder) Int(v int64) { b.add(strconv.FormatInt(v, 10)) }

// Uint adds an unsigned integer field.
func (b *KeyBuilder) Uint(v uint64) { b.add(strconv.FormatUint(v, 10)) }

// Bool adds a boolean field as "t" or "f".
func (b *KeyBuilder) Bool(v bool) { b.add(encodeBool(v)) }

// Time adds a time field as UTC RFC 3339 with nanoseconds.
func (b *KeyBuilder) Time(v time.Time) { b.add(encodeTime(v)) }

// UUID adds a UUID field in lowercase.
func (b *KeyBuilder) UUID(v string) { b.add(strings.ToLower(v)) }

// Key returns the encoded key; "v1" alone when no field was added.
func (b *KeyBuilder) Key() string {
	if b.buf == nil {
		return "v1"
	}
	return string(b.buf)
}

func encodeBool(v bool) string {
	if v {
		return "t"
	}
	return "f"
}

func encodeTime(v time.Time) string { return v.UTC().Format(time.RFC3339Nano) }

// KeyHash is the SHA-256 of an encoded key: the identity of a dedup record.
func KeyHash(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// MaxKeyLen is the longest key, in bytes, that every store accepts. Longer
// keys are refused before the claim with an error wrapping
// ErrInvalidMessage. The narrowest column is MySQL's key_text, a MEDIUMTEXT
// of 16 MiB − 1 bytes, which holds the key made valid UTF-8 (each invalid
// byte becomes U+FFFD, three bytes): 5,592,405 key bytes at most. The limit
// is set well below that, at 1 MiB, so that a claim's statement (the key
// text three times over, at worst) also fits MySQL 5.7's default
// max_allowed_packet of 4 MiB. Redis keys are "<prefix>:<consumer>:<hex
// SHA-256 of the key>" whatever the key's length, and the key's text is a
// field of the record's hash, which holds 512 MB.
const MaxKeyLen = 1 << 20

// ErrEmptyKey is returned by stores for an empty key. It wraps
// ErrInvalidMessage, so it is permanent.
var ErrEmptyKey = fmt.Errorf("%w: empty key", ErrInvalidMessage)

// FingerprintBuilder computes the fingerprint of a message: "v1:" and the hex
// SHA-256 over the fingerprint fields sorted by JSON name, each written as
// name and value in the key encoding. Absent and zero-valued fields are left
// out, and fields not declared are never seen, so a producer's resend with a
// new unrelated field is still a duplicate. The zero value is ready.
type FingerprintBuilder struct {
	fields []fpField
}

type fpField struct{ name, value string }

func (f *FingerprintBuilder) add(name, value string) {
	f.fields = append(f.fields, fpField{name, value})
}

// String adds a string field unless it is empty.
func (f *FingerprintBuilder) String(name, v string) {
	if v != "" {
		f.add(name, v)
	}
}

// Int adds a signed integer field unless it is zero.
func (f *FingerprintBuilder) Int(name string, v int64) {
	if v != 0 {
		f.add(name, strconv.FormatInt(v, 10))
	}
}

// Uint adds an unsigned integer field unless it is zero.
func (f *FingerprintBuilder) Uint(name string, v uint64) {
	if v != 0 {
		f.add(name, strconv.FormatUint(v, 10))
	}
}

// Float adds a float field unless it is zero, in Go's shortest 'g' format.
func (f *FingerprintBuilder) Float(name string, v float64) {
	if v != 0 {
		f.add(name, strconv.FormatFloat(v, 'g', -1, 64))
	}
}

// Bool adds a boolean field unless it is false.
func (f *FingerprintBuilder) Bool(name string, v bool) {
	if v {
		f.add(name, encodeBool(v))
	}
}

// Time adds a time field unless it is the zero time.
func (f *FingerprintBuilder) Time(name string, v time.Time) {
	if !v.IsZero() {
		f.add(name, encodeTime(v))
	}
}

// UUID adds a UUID field, lowercased, unless it is empty.
func (f *FingerprintBuilder) UUID(name, v string) { f.String(name, strings.ToLower(v)) }

// Bytes adds a bytes field unless it is empty.
func (f *FingerprintBuilder) Bytes(name string, v []byte) {
	if len(v) > 0 {
		f.add(name, string(v))
	}
}

// Sum returns the fingerprint. It does not change f.
func (f *FingerprintBuilder) Sum() []byte {
	fields := append([]fpField(nil), f.fields...)
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].name < fields[j].name })
	var kb KeyBuilder
	for _, fl := range fields {
		kb.String(fl.name)
		kb.String(fl.value)
	}
	sum := sha256.Sum256([]byte(kb.Key()))
	out := make([]byte, 0, 3+hex.EncodedLen(len(sum)))
	out = append(out, "v1:"...)
	return hex.AppendEncode(out, sum[:])
}

// fingerprintLen is the length of every fingerprint a store writes: "v1:"
// or "h1:" and 64 lowercase hex digits.
const fingerprintLen = 3 + 2*sha256.Size

// StoredFingerprint is the form in which every store keeps the fingerprint
// fp: nil for an empty fp (no fingerprint); fp itself when it already is a
// digest of FingerprintBuilder ("v1:" and 64 lowercase hex digits); any
// other fp, whatever its length, as "h1:" and the hex SHA-256 of its bytes.
// So a stored fingerprint is always 67 bytes and fits every store's column
// (MySQL's is VARBINARY(255)), and the fingerprints of generated handlers
// are stored as they were before. Stores call it; comparisons go through
// decideClaim, which also accepts records written by older versions.
func StoredFingerprint(fp []byte) []byte {
	switch {
	case len(fp) == 0:
		return nil
	case isDigest(fp, "v1:"):
		return fp
	}
	sum := sha256.Sum256(fp)
	out := make([]byte, 0, fingerprintLen)
	out = append(out, "h1:"...)
	return hex.AppendEncode(out, sum[:])
}

// isDigest reports whether b is prefix and 64 lowercase hex digits.
func isDigest(b []byte, prefix string) bool {
	if len(b) != fingerprintLen || string(b[:3]) != prefix {
		return false
	}
	for _, c := range b[3:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// sameFingerprint reports whether a presented fingerprint matches the stored
// one. An empty fingerprint on either side matches anything: callers that do
// not fingerprint are never in conflict. A stored fingerprint in the stored
// form (StoredFingerprint) is compared with the presented one's stored form;
// any other stored value was written by an older version, which kept the
// caller's bytes as they were, and is compared with those bytes. A stored
// value cut short (by a column too narrow, or by hand) so matches nothing:
// the key is a conflict, never a duplicate of a message it cannot vouch for.
func sameFingerprint(stored, presented []byte) bool {
	switch {
	case len(stored) == 0 || len(presented) == 0:
		return true
	case isDigest(stored, "v1:") || isDigest(stored, "h1:"):
		return string(stored) == string(StoredFingerprint(presented))
	}
	return string(stored) == string(presented)
}

// ProviderKey is the idempotency key handed to an external provider for a
// claim: stable across retries and takeovers of the same consumer and key,
// 64 lowercase hex characters (fits Stripe's, Twilio's and most others' limits).
func ProviderKey(consumer, key string) string {
	h := sha256.New()
	h.Write([]byte(consumer))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalUUID returns the UUID s in its canonical form (8-4-4-4-12
// lowercase hex), or an error when s is not a UUID or is the zero UUID, which
// no producer means as a business key. Generated decoders call it for uuid
// fields.
func CanonicalUUID(s string) (string, error) {
	if len(s) != 36 {
		return "", fmt.Errorf("%q is not a UUID", s)
	}
	b := []byte(strings.ToLower(s))
	zero := true
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", fmt.Errorf("%q is not a UUID", s)
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", fmt.Errorf("%q is not a UUID", s)
		}
		if c != '0' {
			zero = false
		}
	}
	if zero {
		return "", fmt.Errorf("the zero UUID is not a valid key")
	}
	return string(b), nil
}
