package fsutil

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// NamesFolder reports whether a path as the caller wrote it ends in a
// slash (or "/."): POSIX reads that as a promise that it names a folder,
// which the cleaning of the path would otherwise forget.
func NamesFolder(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.")
}

// CheckFolderSuffix refuses a path written with a trailing slash when
// what it names (info; nil when nothing) is not a folder, as open(2)
// does: a file is not_a_directory; nothing at all is not_found, or, for
// a call that would create it (create), is_directory, since no file can
// be created under a folder's name.
func CheckFolderSuffix(p string, info fs.FileInfo, create bool) error {
	if !NamesFolder(p) || (info != nil && info.IsDir()) {
		return nil
	}
	if info != nil {
		return &tool.Error{Code: tool.CodeNotADirectory,
			Message: fmt.Sprintf("%s ends in a slash, which names a folder, but it is a file", p),
			Hint:    fmt.Sprintf("drop the trailing slash to mean the file: %s", strings.TrimRight(strings.TrimSuffix(p, "/."), "/"))}
	}
	if create {
		return &tool.Error{Code: tool.CodeIsDirectory,
			Message: fmt.Sprintf("%s ends in a slash, which names a folder: a file cannot be created under that name", p),
			Hint:    fmt.Sprintf("drop the trailing slash to create the file %s, or name a file inside the folder", strings.TrimRight(strings.TrimSuffix(p, "/."), "/"))}
	}
	return nil
}
