package connector

import (
	"syscall"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// wardenAttr starts the warden in a process group of its own, with
// SIGTERM as its parent-death signal: the warden catches it and takes the
// server's tree down before it leaves.
func wardenAttr() *syscall.SysProcAttr {
	attr := proctree.GroupAttr()
	attr.Pdeathsig = syscall.SIGTERM
	return attr
}
