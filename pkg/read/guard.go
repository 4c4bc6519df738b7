package read

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// deviceNames are paths that never end or wait for input: refused by name,
// before anything stats or opens them.
var deviceNames = map[string]string{
	"/dev/zero":    "endless zero bytes",
	"/dev/random":  "endless random bytes",
	"/dev/urandom": "endless random bytes",
	"/dev/full":    "endless zero bytes",
	"/dev/stdin":   "this process's input",
	"/dev/stdout":  "this process's output",
	"/dev/stderr":  "this process's error output",
	"/dev/tty":     "the terminal",
	"/dev/console": "the system console",
	"/dev/ptmx":    "a terminal multiplexer",
	"/dev/kmsg":    "the kernel log, which waits for new messages",
	"/proc/kmsg":   "the kernel log, which waits for new messages",
	"/proc/kcore":  "the kernel's memory",
}

// devicePathReason says why a path is refused by name, or "" when it is
// not a known device path: the names above, terminals (/dev/tty*,
// /dev/pts/*), file descriptors (/dev/fd/*, /proc/*/fd/*,
// /proc/*/task/*/fd/*), which may be pipes that block forever, and the
// memory of processes (/proc/*/mem, /proc/*/task/*/mem).
func devicePathReason(abs string) string {
	abs = filepath.Clean(abs)
	if why, ok := deviceNames[abs]; ok {
		return why
	}
	switch {
	case strings.HasPrefix(abs, "/dev/fd/"):
		return "a file descriptor of this process"
	case strings.HasPrefix(abs, "/dev/tty"), strings.HasPrefix(abs, "/dev/pts/"):
		return "a terminal"
	case strings.HasPrefix(abs, "/proc/"):
		parts := strings.Split(abs, "/") // "", "proc", PID, "fd", N  or  "", "proc", PID, "task", TID, "fd", N
		if len(parts) >= 5 && parts[3] == "fd" || len(parts) >= 7 && parts[3] == "task" && parts[5] == "fd" {
			return "a file descriptor of a process"
		}
		if len(parts) == 4 && parts[3] == "mem" || len(parts) == 6 && parts[3] == "task" && parts[5] == "mem" {
			return "the memory of a process"
		}
	}
	return ""
}

func refuseDevicePath(abs string) error {
	why := devicePathReason(abs)
	if why == "" {
		return nil
	}
	return &tool.Error{Code: tool.CodeSpecialFile,
		Message: fmt.Sprintf("%s is a device path (%s): reading it could block or never end", abs, why),
		Hint:    "read regular files only; to sample a device or stream use bash with a bound, e.g. head -c 64 " + abs}
}

// checkFileType refuses what cannot be read as a file: special files
// (they would block or never end) and directories.
func checkFileType(display, abs string, info fs.FileInfo) error {
	if kind := fsutil.SpecialKind(info.Mode()); kind != "" {
		return &tool.Error{Code: tool.CodeSpecialFile,
			Message: fmt.Sprintf("%s is %s: reading it could block forever", display, kind),
			Hint:    "read regular files only; to see what a program writes into it, use bash with a timeout"}
	}
	if info.IsDir() {
		return &tool.Error{Code: tool.CodeIsDirectory,
			Message: fmt.Sprintf("%s is a directory, not a file", display),
			Hint:    fmt.Sprintf("list it with glob: mcode glob '*' %s", fsutil.ShellQuote(abs))}
	}
	return nil
}

// pathArg writes a path as the argument of a suggested command: quoted
// for the shell, and with ./ before a relative path that starts with a
// dash, which the command would take for a flag.
func pathArg(p string) string {
	if strings.HasPrefix(p, "-") {
		p = "./" + p
	}
	return fsutil.ShellQuote(p)
}
