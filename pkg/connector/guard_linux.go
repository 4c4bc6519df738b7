package connector

import (
	"syscall"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// guardAttr starts the guard in a process group of its own, with
// SIGTERM as its parent-death signal: the guard catches it and takes the
// server's tree down before it leaves.
func guardAttr() *syscall.SysProcAttr {
	attr := proctree.GroupAttr()
	attr.Pdeathsig = syscall.SIGTERM
	return attr
}
