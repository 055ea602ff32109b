package spec

import (
	"fmt"
	"strings"
)

// KeyEncoding is the version of the key encoding of the generated handlers:
// guard.KeyBuilder's v1.
const KeyEncoding = "v1"

// keyIdentityFormat starts every key identity: the format of the string.
const keyIdentityFormat = "idem-key/1"

// KeyIdentity is what a consumer's keys mean: if any part of it changes,
// the key of a message (or what it is compared with) changes too, and every
// message handled before would count as new. The generated handler records
// it (the <Name>KeyIdentity constant) and declares it to the store
// (guard.WithKeyIdentity); idemgen refuses to regenerate a handler whose
// recorded identity differs in the same namespace.
//
// Its text form, String, is canonical and deterministic:
//
//	idem-key/1 consumer=<namespace> key=<field>:<type>,… encoding=v1 fingerprint=<field>:<type>,…|none[ hash_tag=<field>:<type>]
//
// for example
//
//	idem-key/1 consumer=deduct_inventory key=order_id:string,sku:string encoding=v1 fingerprint=quantity:int64
//
// Fields are named by their JSON names, in key (and fingerprint) order;
// their types are the spec's types (string, int64, uuid, …) for declared
// fields and the Go types for the fields of a message.type (events.OrderID,
// time.Time). hash_tag appears for a consumer with one: it decides where the
// dedup records live.
type KeyIdentity struct {
	Namespace   string // Consumer.Namespace
	Key         string // "order_id:string,sku:string"
	Encoding    string // KeyEncoding
	Fingerprint string // "quantity:int64", or "none"
	HashTag     string // "user_id:string", or "" without a hash tag
}

// String returns the identity's canonical text.
func (k KeyIdentity) String() string {
	s := fmt.Sprintf("%s consumer=%s key=%s encoding=%s fingerprint=%s", keyIdentityFormat, k.Namespace, k.Key, k.Encoding, k.Fingerprint)
	if k.HashTag != "" {
		s += " hash_tag=" + k.HashTag
	}
	return s
}

// ParseKeyIdentity reads the text form of a key identity.
func ParseKeyIdentity(s string) (KeyIdentity, error) {
	var k KeyIdentity
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' }) {
		// Read from a file anyone may have edited: never printed as it is.
		return k, fmt.Errorf("key identity %q: not printable text", s)
	}
	rest, ok := strings.CutPrefix(s, keyIdentityFormat+" ")
	if !ok {
		return k, fmt.Errorf("key identity %q: not of the form %s", s, keyIdentityFormat)
	}
	seen := map[string]bool{}
	for part := range strings.SplitSeq(rest, " ") {
		name, value, ok := strings.Cut(part, "=")
		if !ok || seen[name] {
			return k, fmt.Errorf("key identity %q: bad part %q", s, part)
		}
		seen[name] = true
		switch name {
		case "consumer":
			k.Namespace = value
		case "key":
			k.Key = value
		case "encoding":
			k.Encoding = value
		case "fingerprint":
			k.Fingerprint = value
		case "hash_tag":
			k.HashTag = value
		default:
			return k, fmt.Errorf("key identity %q: unknown part %q", s, name)
		}
	}
	if k.Namespace == "" || k.Key == "" || k.Encoding == "" || k.Fingerprint == "" {
		return k, fmt.Errorf("key identity %q: a part is missing", s)
	}
	return k, nil
}

// KeyIdentity returns the consumer's key identity. The message's fields
// must be known: declared, or resolved (Resolve).
func (c *Consumer) KeyIdentity() KeyIdentity {
	fields := func(names []string) string {
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = name + ":" + c.fieldType(name)
		}
		return strings.Join(parts, ",")
	}
	k := KeyIdentity{
		Namespace:   c.Namespace(),
		Key:         fields(c.Key),
		Encoding:    KeyEncoding,
		Fingerprint: fields(c.Fingerprint),
	}
	if k.Fingerprint == "" {
		k.Fingerprint = "none"
	}
	if c.HashTag != "" {
		k.HashTag = fields([]string{c.HashTag})
	}
	return k
}

// fieldType is the type of the field name in a key identity: its Go type
// for a message.type, its spec type otherwise.
func (c *Consumer) fieldType(name string) string {
	f, _ := c.Message.Field(name)
	if f.GoType != "" {
		return f.GoType
	}
	return f.Type
}

// FieldNames returns the field names of an identity's field list
// ("order_id:string,sku:events.SKU" → order_id, sku); none for "none". A
// comma inside brackets (a generic Go type) does not separate fields.
func FieldNames(list string) []string {
	if list == "none" || list == "" {
		return nil
	}
	var names []string
	depth, start := 0, 0
	for i := 0; i <= len(list); i++ {
		switch {
		case i < len(list) && list[i] == '[':
			depth++
		case i < len(list) && list[i] == ']':
			depth--
		case i == len(list) || list[i] == ',' && depth == 0:
			name, _, _ := strings.Cut(list[start:i], ":")
			names = append(names, name)
			start = i + 1
		}
	}
	return names
}
