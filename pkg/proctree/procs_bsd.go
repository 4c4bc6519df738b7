//go:build unix && !linux && !darwin

package proctree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Here processes cannot be listed: a tree is its main process, which
// kill(pid, 0) says is there or not, and its process group, which a
// signal to -pgid reaches whole.

// Read says whether pid is there (a zombie too, until it is reaped).
func Read(pid int) (Proc, bool) {
	if err := unix.Kill(pid, 0); err != nil && !errors.Is(err, unix.EPERM) {
		return Proc{}, false
	}
	return Proc{PID: pid, State: 'R'}, true
}

func Children(pid int) []int { return nil }

// HasChildren cannot look: it says there may be some.
func HasChildren() bool { return true }

func AllPIDs() []int { return nil }

func groupOnly(pgid int) []Proc { return nil }

// TreeMembers has no table to read: the caller's own view stands.
func TreeMembers(leader int) ([]Proc, bool) { return nil, false }
