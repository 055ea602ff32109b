package ops

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/idemkit/idem/guard"
)

// quote prints any bytes safely: Go's quoted form, in which control
// characters, invalid UTF-8 and characters that are not printable (a
// terminal escape, a right-to-left override) are escapes. It is what
// --key-quoted reads back.
func quote(s string) string { return strconv.Quote(s) }

// plain is s as it is when every character of it is printable and it has
// no spaces or quotes, else quoted: for consumer names and other short
// texts in tables.
func plain(s string) string {
	if s == "" || !utf8.ValidString(s) || strings.ContainsAny(s, "\" \\") {
		return quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return quote(s)
		}
	}
	return s
}

// when prints a time of the store with how long ago (or ahead) it is from
// now, the store's clock.
func when(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	s := t.UTC().Format(time.RFC3339Nano)
	d := now.Sub(t).Round(time.Second)
	switch {
	case d > 0:
		return s + " (" + d.String() + " ago)"
	case d < 0:
		return s + " (in " + (-d).String() + ")"
	}
	return s + " (now)"
}

// age prints how long ago t was, for tables.
func age(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return now.Sub(t).Round(time.Second).String()
}

// size prints a number of bytes.
func size(n int64) string {
	switch {
	case n < 0:
		return "unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// leaseText says what a record's lease is.
func leaseText(r *guard.StoredRecord) string {
	switch {
	case r.LeaseUntil.IsZero():
		return "-"
	case r.LeaseLive():
		return "live until " + when(r.LeaseUntil, r.Now)
	}
	return "ended " + when(r.LeaseUntil, r.Now)
}

// stateText is a record's state, with "expired" when its retention ended.
func stateText(r *guard.StoredRecord) string {
	if r.Expired() {
		return string(r.State) + " (expired)"
	}
	return string(r.State)
}

// recordJSON is a record in --json output. Texts are JSON strings (bytes
// that are not UTF-8 become U+FFFD); the _hex fields hold the exact bytes.
type recordJSON struct {
	Consumer    string     `json:"consumer"`
	Key         string     `json:"key"`
	KeyHex      string     `json:"key_hex"`
	Hash        string     `json:"hash"`
	HashTag     string     `json:"hash_tag,omitempty"`
	State       string     `json:"state"`
	Expired     bool       `json:"expired"`
	LeaseLive   bool       `json:"lease_live"`
	Owner       string     `json:"owner,omitempty"`
	LeaseUntil  *time.Time `json:"lease_until,omitempty"`
	CreatedAt   *time.Time `json:"created_at,omitempty"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	Fingerprint string     `json:"fingerprint,omitempty"`
	Result      string     `json:"result,omitempty"`
	ResultHex   string     `json:"result_hex,omitempty"`
	Now         time.Time  `json:"store_now"`
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func toJSON(r *guard.StoredRecord) recordJSON {
	return recordJSON{
		Consumer: r.Consumer, Key: r.Key, KeyHex: hex.EncodeToString([]byte(r.Key)), Hash: hex.EncodeToString(r.Hash[:]),
		HashTag: r.Tag, State: string(r.State), Expired: r.Expired(), LeaseLive: r.LeaseLive(), Owner: r.Owner,
		LeaseUntil: optTime(r.LeaseUntil), CreatedAt: optTime(r.CreatedAt), ExpiresAt: optTime(r.ExpiresAt),
		Fingerprint: string(r.Fingerprint), Result: string(r.Result), ResultHex: hex.EncodeToString(r.Result), Now: r.Now.UTC(),
	}
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printRecord prints one record for show, a field a line.
func printRecord(w io.Writer, r *guard.StoredRecord) {
	fields := [][2]string{
		{"consumer", plain(r.Consumer)},
		{"key", quote(r.Key)},
		{"hash", hex.EncodeToString(r.Hash[:])},
	}
	if r.Tag != "" {
		fields = append(fields, [2]string{"hash tag", plain(r.Tag)})
	}
	expires := when(r.ExpiresAt, r.Now)
	if r.ExpiresAt.IsZero() {
		expires = "never"
	}
	if r.Expired() {
		expires += ": expired, it behaves as absent until Purge deletes it"
	}
	fields = append(fields,
		[2]string{"state", string(r.State)},
		[2]string{"created", when(r.CreatedAt, r.Now)},
		[2]string{"expires", expires},
		[2]string{"lease", leaseText(r)},
		[2]string{"owner", orDash(plain, r.Owner)},
		[2]string{"fingerprint", orDash(quote, string(r.Fingerprint))},
	)
	label := "result"
	if r.State == guard.StateFailed {
		label = "reason"
	}
	fields = append(fields, [2]string{label, orDash(quote, string(r.Result))})
	for _, f := range fields {
		fmt.Fprintf(w, "%-12s %s\n", f[0], f[1])
	}
}

func orDash(f func(string) string, s string) string {
	if s == "" {
		return "-"
	}
	return f(s)
}
