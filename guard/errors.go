package guard

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Errors returned by stores and generated handlers. Test them with errors.Is;
// *InProgressError also with errors.As. The right reaction of a consumer is
// given for each; Permanent tells which must not be retried.
var (
	// ErrInProgress: another worker holds a live lease on the key. The error
	// is an *InProgressError carrying RetryAfter; nak with that delay.
	ErrInProgress = errors.New("guard: key is in progress")
	// ErrKeyConflict: the key was seen with a different fingerprint within the
	// retention. Two different messages share a business key: dead-letter.
	ErrKeyConflict = errors.New("guard: key seen before with a different fingerprint")
	// ErrFailed: the key failed permanently before (Reject, or on_error keep).
	// Dead-letter.
	ErrFailed = errors.New("guard: key failed permanently")
	// ErrUncertain: an at-most-once effect may or may not have happened (its
	// lease expired mid-effect, or it failed after possibly reaching the
	// provider). Dead-letter and alert; resolve with Store.Resolve or Forget.
	ErrUncertain = errors.New("guard: effect outcome is uncertain")
	// ErrLeaseLost: our lease was taken over before we completed. The effect
	// may have happened twice; log it.
	ErrLeaseLost = errors.New("guard: lease lost to another owner")
	// ErrPartialEffect: a Redis effect command failed after EXEC; Redis does
	// not roll back, so part of the effect happened. Dead-letter and alert.
	ErrPartialEffect = errors.New("guard: effect partially applied")
	// ErrInvalidMessage: the body cannot be decoded or lacks a key field.
	// Dead-letter.
	ErrInvalidMessage = errors.New("guard: invalid message")
	// ErrKeyIdentityChanged: the consumer's key identity (WithKeyIdentity)
	// differs from the one recorded for it. Its keys now mean something else,
	// so every message handled before would run its effect again. Not
	// permanent: the message waits (nak) until the deployment is fixed or the
	// consumer moves to a new namespace (key_version in the spec).
	ErrKeyIdentityChanged = errors.New("guard: key identity of the consumer changed")
	// ErrLeaseHoldExceeded: Lease.Extend would hold the key longer after its
	// claim than the maximum lease hold (WithMaxLeaseHold). The lease is
	// unchanged and runs out at its current end; the apply should give up
	// (its error releases, keeps or marks the key by the usual rules). Not
	// permanent.
	ErrLeaseHoldExceeded = errors.New("guard: lease held longer than the maximum lease hold")
)

// KeyIdentityError is the error of a claim whose consumer's key identity
// (WithKeyIdentity) differs from the one recorded for the consumer, or whose
// recorded identity cannot be read. errors.Is(err, ErrKeyIdentityChanged) is
// true; it is not permanent: the message waits until the deployment is fixed.
type KeyIdentityError struct {
	Consumer   string
	Recorded   string // the identity recorded for Consumer
	Configured string // the identity this store was given
	// Corrupt, when not empty, says why the identity record could not be
	// read (Recorded is then what could be read of it).
	Corrupt string
}

// Error implements error.
func (e *KeyIdentityError) Error() string {
	if e.Corrupt != "" {
		return fmt.Sprintf("guard: consumer %s: the key identity record is corrupt (%s; it reads %q), configured identity %q: inspect it with KeyIdentity, reset it with ForgetKeyIdentity",
			e.Consumer, e.Corrupt, e.Recorded, e.Configured)
	}
	return fmt.Sprintf("guard: consumer %s: key identity changed from %q (recorded) to %q (configured): its keys mean something else now, so every message handled before would run its effect again; deploy the recorded identity, move the consumer to a new namespace (key_version), or reset the record with ForgetKeyIdentity",
		e.Consumer, e.Recorded, e.Configured)
}

// Is makes errors.Is(err, ErrKeyIdentityChanged) true.
func (e *KeyIdentityError) Is(target error) bool { return target == ErrKeyIdentityChanged }

// InProgressError is returned when another worker holds a live lease on the
// key. errors.Is(err, ErrInProgress) is true.
type InProgressError struct {
	Consumer string
	// RetryAfter is how long the current lease still runs, by the store's clock.
	RetryAfter time.Duration
}

// Error implements error.
func (e *InProgressError) Error() string {
	return fmt.Sprintf("guard: %s: key is in progress, retry after %s", e.Consumer, e.RetryAfter.Round(time.Millisecond))
}

// Is makes errors.Is(err, ErrInProgress) true.
func (e *InProgressError) Is(target error) bool { return target == ErrInProgress }

// Permanent reports whether err must not be retried: redelivering the message
// would give the same answer or double an effect. Broker adapters dead-letter
// (or terminate) such messages; everything else is naked and retried.
func Permanent(err error) bool {
	for _, p := range []error{ErrKeyConflict, ErrFailed, ErrUncertain, ErrLeaseLost, ErrPartialEffect, ErrInvalidMessage} {
		if errors.Is(err, p) {
			return true
		}
	}
	return false
}

// Reject marks err, returned by an apply function, as a business rejection
// (out of stock, unknown user). The store rolls the effect back, keeps the
// key as failed with err's text as the reason, and answers ErrFailed to this
// and every later delivery of the key. Reject(nil) is nil.
func Reject(err error) error {
	if err == nil {
		return nil
	}
	return &rejectError{err}
}

type rejectError struct{ err error }

func (e *rejectError) Error() string { return "rejected: " + e.err.Error() }
func (e *rejectError) Unwrap() error { return e.err }

// IsRejected reports whether err was marked with Reject.
func IsRejected(err error) bool {
	var r *rejectError
	return errors.As(err, &r)
}

// NotPerformed marks err, returned by an external apply function, as certain
// proof that the external call did not happen (the request never left, the
// provider refused it before acting). Under at-most-once delivery only such
// errors release the key for a retry. NotPerformed(nil) is nil.
func NotPerformed(err error) error {
	if err == nil {
		return nil
	}
	return &notPerformedError{err}
}

type notPerformedError struct{ err error }

func (e *notPerformedError) Error() string { return e.err.Error() }
func (e *notPerformedError) Unwrap() error { return e.err }

// IsNotPerformed reports whether err was marked with NotPerformed.
func IsNotPerformed(err error) bool {
	var n *notPerformedError
	return errors.As(err, &n)
}

// stateError is an error answering a redelivery of a key in a final state;
// it wraps both the sentinel and, where known, the stored reason.
type stateError struct {
	sentinel error
	consumer string
	reason   string
	cause    error
}

func (e *stateError) Error() string {
	msg := e.sentinel.Error()
	if e.consumer != "" {
		msg = fmt.Sprintf("%s (consumer %s)", msg, e.consumer)
	}
	if e.cause != nil {
		return msg + ": " + e.cause.Error()
	}
	if e.reason != "" {
		return msg + ": " + e.reason
	}
	return msg
}

func (e *stateError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.sentinel, e.cause}
	}
	return []error{e.sentinel}
}

// errFor builds the error for sentinel with a stored reason or a live cause.
func errFor(sentinel error, consumer, reason string, cause error) error {
	return &stateError{sentinel: sentinel, consumer: consumer, reason: reason, cause: cause}
}

// MaxReasonLen is the longest failure reason a store keeps, in bytes: the
// text of a Reject error, of Lease.Fail's reason, of a partial effect. A
// longer one is cut at a character boundary and ends in "…", so that no
// error text, however long, makes the record too large to write (MySQL's
// result column and packet hold 16 MiB; a record that cannot be written
// would be redelivered for ever).
const MaxReasonLen = 64 << 10

// MaxResultLen is the longest result Lease.Complete (and Run, through
// Lease.SetResult) stores, in bytes.
const MaxResultLen = 1 << 20

// reasonText is err's text as a store keeps it as a failure reason: cut to
// MaxReasonLen bytes.
func reasonText(err error) []byte {
	if err == nil {
		return nil
	}
	s := err.Error()
	if len(s) <= MaxReasonLen {
		return []byte(s)
	}
	const ellipsis = "…"
	cut := MaxReasonLen - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return []byte(s[:cut] + ellipsis)
}
