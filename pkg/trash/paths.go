package trash

import (
	"runtime"
	"strings"

	"github.com/mcode-dev/mcode/pkg/winpath"
)

// Path rules of the platform rm's refusals compare by: on Windows drive
// and share roots, case folded, either separator (pkg/winpath).

const onWindows = runtime.GOOS == "windows"

// isRootPath says whether p is a file system's root: / or, on Windows, a
// drive's or a share's.
func isRootPath(p string) bool {
	if onWindows {
		return winpath.IsRoot(p)
	}
	return p == "/"
}

// samePath says whether a and b name the same path.
func samePath(a, b string) bool {
	if onWindows {
		return winpath.Equal(a, b)
	}
	return a == b
}

// isBelow says whether p is inside dir (not dir itself).
func isBelow(p, dir string) bool {
	if onWindows {
		return winpath.Within(p, dir) && !winpath.Equal(p, dir)
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// inPlatformTrash says whether p is inside a trash of the platform's own
// that is not the home trash: another drive's Recycle Bin, or a macOS
// volume's .Trashes.
func inPlatformTrash(l Layout, p string) bool {
	switch l {
	case RecycleBin:
		return winpath.InRecycleBin(p)
	case MacTrash:
		return strings.Contains(p+"/", "/"+volumeTrashes+"/")
	}
	return false
}
