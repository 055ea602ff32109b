package guard

// StateError returns the error a store answers for a key in (or moving to) a
// final state: it wraps sentinel (ErrFailed, ErrUncertain, ErrPartialEffect, …)
// and, when not nil, cause; reason is a stored reason shown when cause is nil.
// Stores outside this package (redisguard) use it so that every store words
// these errors alike.
func StateError(sentinel error, consumer, reason string, cause error) error {
	return errFor(sentinel, consumer, reason, cause)
}
