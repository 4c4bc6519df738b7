//go:build !linux && !windows

package trash

// systemMounts is empty where there is no /proc/self/mounts: only the
// home trash is read.
func systemMounts() []string { return nil }
