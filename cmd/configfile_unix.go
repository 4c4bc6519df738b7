//go:build unix

package cmd

import "syscall"

const nonblockFlag = syscall.O_NONBLOCK
