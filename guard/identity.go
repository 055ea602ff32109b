package guard

import "fmt"

// Key identity records (WithKeyIdentity).
//
// Each store keeps the key identity of a consumer namespace in a reserved
// record of the consumer, among its dedup records, without a table or key
// of its own: the record of the empty key. The empty key is never a valid
// key (ErrEmptyKey), so no claim, Inspect, Resolve or Forget reaches it, and
// no other key hashes to it. In SQL it is the row (consumer, SHA-256 of "")
// with key_text '', state 'done', the identity in result and an expires_at
// in the year 9999, which Purge also skips by its key_hash; in Redis it is
// the hash "<prefix>:<consumer>:<hex SHA-256 of "">" (e3b0c442…b855), with
// the fields state done, key "", result (the identity) and created, and no
// TTL. Operators read it with the stores' KeyIdentity and delete it with
// ForgetKeyIdentity, after which the next claim records the identity it is
// configured with:
//
//	SELECT consumer, result FROM idem_keys WHERE key_text = '' -- every recorded identity (SQL)
//	HGET "idem_keys:deduct_inventory:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" result
//
// The check runs on the first claim (Do, Claim, Run) of each consumer through
// a store, and its positive answer is kept by the store (and its With views)
// for the life of the process: one round trip per consumer, identity and
// process. A refusal is not kept, so a fix takes effect on the next message.
// Operators' methods (Inspect, Resolve, Forget, Purge) never check.

// IdentityRecordKey is the key whose record holds a consumer's key identity:
// the empty key, which no claim may use.
const IdentityRecordKey = ""

// checkKeyIdentity compares the identity configured for consumer with the
// record a store read: its state and result. It returns nil when they
// agree, and a *KeyIdentityError (ErrKeyIdentityChanged) when they differ
// or the record is not one the stores write (a state other than done, or no
// identity).
func checkKeyIdentity(consumer, configured string, state State, recorded []byte) error {
	switch {
	case state != StateDone:
		return &KeyIdentityError{Consumer: consumer, Configured: configured, Recorded: string(recorded),
			Corrupt: fmt.Sprintf("state %q, want done", state)}
	case len(recorded) == 0:
		return &KeyIdentityError{Consumer: consumer, Configured: configured, Corrupt: "it holds no identity"}
	case string(recorded) != configured:
		return &KeyIdentityError{Consumer: consumer, Recorded: string(recorded), Configured: configured}
	}
	return nil
}
