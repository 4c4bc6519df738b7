//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompSupported = true
	nativeAudit      = unix.AUDIT_ARCH_AARCH64
	x32Bit           = 0
	cloneFlagsOff    = offArg0
)
