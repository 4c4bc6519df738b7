//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompSupported = true
	nativeAudit      = unix.AUDIT_ARCH_X86_64
	// x32Bit marks a system call of the x32 ABI, which shares the arch
	// value with x86-64.
	x32Bit = 0x40000000
	// cloneFlagsOff: clone's flags are its first argument.
	cloneFlagsOff = offArg0
)
