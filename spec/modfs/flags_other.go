//go:build !unix

package modfs

// openFlags are added to every open; the checks before it (Lstat) do the
// work on systems without O_NOFOLLOW.
const openFlags = 0
