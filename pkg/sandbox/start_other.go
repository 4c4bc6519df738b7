//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// Start starts the child: on macOS the program was wrapped in
// sandbox-exec by Wrap; elsewhere there is no sandbox, and a plan is
// refused rather than ignored.
func Start(pl *Plan, start func() error) (Applied, func(), error) {
	if pl != nil && runtime.GOOS != "darwin" {
		return Applied{}, func() {}, fmt.Errorf("sandbox: mcode has no sandbox for %s", runtime.GOOS)
	}
	return Applied{}, func() {}, start()
}

// LandlockABI is 0 off Linux.
func LandlockABI() int { return 0 }

// Probe finds what this machine offers.
func Probe(bool) Kernel {
	k := Kernel{Platform: runtime.GOOS}
	if runtime.GOOS == "darwin" {
		_, err := os.Stat(sandboxExec)
		k.SandboxExec = err == nil
	}
	return k
}

// KernelOf is the kernel as a run found it.
func KernelOf(*Plan, Applied) Kernel { return Probe(false) }
