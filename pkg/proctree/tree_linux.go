package proctree

import (
	"os"
	"os/exec"
	"syscall"
)

// keepsOrphans: the child subreaper keeps every descendant in reach.
const keepsOrphans = true

// TreeMembers is the caller's to answer on Linux, where the subreaper
// makes a tree the owner's descendants.
func TreeMembers(leader int) ([]Proc, bool) { return nil, false }

// InheritedFile is descriptor fd, which this process's parent passed as
// the fd-th entry of Spec.Files, marked close-on-exec so that what this
// process starts does not inherit it too.
func InheritedFile(fd int, name string) *os.File {
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), name)
}

// containStarted has nothing to do: the process group and Pdeathsig hold
// the child from its start.
func containStarted(cmd *exec.Cmd) error { return nil }
