//go:build !linux

package connector

import (
	"syscall"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

func wardenAttr() *syscall.SysProcAttr { return proctree.GroupAttr() }
