//go:build unix

package textedit

import "syscall"

// openNoBlock keeps the open before the lock from hanging on a FIFO that
// took the file's place after it was checked.
const openNoBlock = syscall.O_NONBLOCK

var errNotDir error = syscall.ENOTDIR

var errLoop error = syscall.ELOOP
