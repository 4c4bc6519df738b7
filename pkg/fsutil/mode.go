package fsutil

import (
	"fmt"
	"io/fs"
)

// OctalMode writes a file mode as chmod(1) and stat(1) do, with the
// setuid (4000), setgid (2000) and sticky (1000) bits: Go keeps those
// apart from the permission bits, so Perm() alone says 0755 for 4755.
func OctalMode(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}
