package osshell

import (
	"os"
	"os/exec"
	"runtime"
)

// Host is the machine this process runs on.
func Host() System {
	return System{GOOS: runtime.GOOS, LookPath: exec.LookPath, IsExecutable: isExecutable, Getenv: os.Getenv}
}

// isExecutable says whether path is a regular file that may run: on
// Windows any (the extension decides), elsewhere one with an x bit.
func isExecutable(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || info.Mode()&0o111 != 0
}
