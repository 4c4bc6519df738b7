package fsutil

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// OpenRegular opens a file that is to be read whole, and refuses any
// other kind of file before a read could block: open(2) of a FIFO waits
// for a writer for ever, unless it is non-blocking (openReadFlags); the
// type is then told by fstat of what was opened, so a path swapped for a
// FIFO between a stat and the open is caught too. display names the path
// in messages.
func OpenRegular(display, abs string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(abs, openReadFlags, 0)
	if err != nil {
		switch {
		case os.IsNotExist(err):
			return nil, nil, NotFound(display, abs)
		case os.IsPermission(err):
			return nil, nil, &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("%s cannot be read: permission denied", display),
				Hint: "check the file's permissions"}
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, nil, &tool.Error{Code: tool.CodeIsDirectory, Message: display + " is a folder, not a file",
			Hint: "name a file"}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		kind := SpecialKind(st.Mode())
		if kind == "" {
			kind = "not a regular file"
		}
		return nil, nil, &tool.Error{Code: tool.CodeSpecialFile,
			Message: fmt.Sprintf("%s is %s, not a regular file: reading it could block or never end", display, kind),
			Hint:    "copy what it holds into a regular file first, and name that file"}
	}
	return f, st, nil
}
