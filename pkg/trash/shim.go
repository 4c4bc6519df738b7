package trash

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ShimDirName is the folder in MCODE_HOME that bash puts first on PATH.
const ShimDirName = "shims"

// ShimName is the one command the shim folder holds.
const ShimName = "rm"

// ShimRootVar carries the workspace root of a bash command to the rm shim
// it runs, which refuses that root like mcode rm does: --root is not
// passed down, and MCODE_ROOT cannot be (a nested mcode would then resolve
// relative paths against the root instead of its own folder).
const ShimRootVar = "MCODE_SHIM_ROOT"

// EnsureShim makes sure dataDir/shims/rm is a symlink to exe that can be
// executed, rebuilding it when it is missing, points elsewhere or is
// anything but that symlink (the folder is mcode's own), and returns the
// shims folder. An error means the shim cannot be trusted: the caller
// must not run a command that could reach the real rm instead. On
// Windows there is no shim ("": nothing goes on PATH): PowerShell's rm is
// an alias no folder on PATH can shadow (seed 001 installs none there).
func EnsureShim(dataDir, exe string) (string, error) {
	if onWindows {
		return "", nil
	}
	dir := filepath.Join(dataDir, ShimDirName)
	return dir, installShim(dir, exe, true)
}

// InstallShim makes dir/rm a symlink to exe unless it already is one. dir
// is the user's folder: an rm already there that is not a link to exe is
// refused (a *tool.Error), never replaced; only a dangling link is.
func InstallShim(dir, exe string) error {
	return installShim(dir, exe, false)
}

// installShim makes dir/rm a link to exe; own says whether whatever is in
// the way may be replaced.
func installShim(dir, exe string, own bool) error {
	if !filepath.IsAbs(exe) {
		return fmt.Errorf("rm shim: the mcode binary path %q is not absolute", exe)
	}
	link := filepath.Join(dir, ShimName)
	if shimOK(link, exe) == nil {
		return nil
	}
	if !own && taken(link) {
		return &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%s exists and is not a link to mcode (%s); refusing to replace it", link, exe),
			Hint:    "pick another folder with --dir, or move that rm away first"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("rm shim: %w", err)
	}
	// A new link under a temp name, renamed over the old one, so that a
	// command starting meanwhile finds the old shim or the new, never none.
	tmp := filepath.Join(dir, ".rm.tmp-"+fsutil.RandomHex(4))
	if err := os.Symlink(exe, tmp); err != nil {
		return fmt.Errorf("rm shim: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		// rename cannot replace a directory: clear whatever squats there.
		if rerr := os.RemoveAll(link); rerr != nil {
			return fmt.Errorf("rm shim: %w", err)
		}
		if err := os.Symlink(exe, link); err != nil {
			return fmt.Errorf("rm shim: %w", err)
		}
	}
	if err := shimOK(link, exe); err != nil {
		return fmt.Errorf("rm shim rebuilt but still not usable: %w", err)
	}
	return nil
}

// taken says whether something other than a dangling link is at path.
func taken(path string) bool {
	info, err := os.Lstat(path)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return info.Mode()&fs.ModeSymlink == 0 || err == nil
}

// shimOK checks that link is a symlink resolving to exe and executable.
func shimOK(link, exe string) error {
	target, err := os.Readlink(link)
	if err != nil {
		return err
	}
	if target != exe {
		a, err1 := filepath.EvalSymlinks(link)
		b, err2 := filepath.EvalSymlinks(exe)
		if err1 != nil || err2 != nil || a != b {
			return fmt.Errorf("%s points at %s, not %s", link, target, exe)
		}
	}
	info, err := os.Stat(link)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", exe)
	}
	return nil
}
