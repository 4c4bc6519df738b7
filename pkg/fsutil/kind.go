package fsutil

import "io/fs"

// SpecialKind names a file type that would block or never end when read
// ("a FIFO (named pipe)", "a socket", "a character device", "a block
// device", "an irregular file"), or "" for regular files, directories and
// symlinks.
func SpecialKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return ""
}
