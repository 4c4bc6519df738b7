//go:build !linux

package connector

import (
	"syscall"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

func guardAttr() *syscall.SysProcAttr { return proctree.GroupAttr() }
