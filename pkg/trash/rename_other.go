//go:build !linux && !darwin

package trash

// renameNoReplace renames oldpath to newpath unless newpath exists.
func renameNoReplace(oldpath, newpath string) error { return renameIfFree(oldpath, newpath) }
