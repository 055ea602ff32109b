//go:build unix

package modfs

import "syscall"

// openFlags are added to every open: never follow a link in the last
// component, and never block on a named pipe swapped in after the check.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
