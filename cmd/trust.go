package cmd

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/guard"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// TrustedFiles locate the person's own files: the configuration the
// caller cannot change, and the key that seals a person's approvals. A
// real process finds them (SystemConfigPath, the user's config folder);
// tests point them at files of their own.
type TrustedFiles struct {
	// System is the system config file; "" for none.
	System string
	// UserDir is mcode's folder in the user's config folder
	// (~/.config/mcode); "" to find it from the environment and the user
	// database.
	UserDir string
}

// userConfigDirs finds mcode's folder in the user's config folder:
// $XDG_CONFIG_HOME/mcode, else $HOME/.config/mcode. The caller controls
// the environment, so when those put it inside a place the caller can
// write, it is relocated (read as an untrusted layer) and the trusted
// one is that of the home folder in the user database.
func (f *Factory) userConfigDirs() (fromEnv, trusted, relocated string) {
	f.userConfigOnce.Do(func() {
		fromEnv, trusted, relocated := f.findUserConfigDirs()
		f.userConfig = [3]string{fromEnv, trusted, relocated}
	})
	return f.userConfig[0], f.userConfig[1], f.userConfig[2]
}

func (f *Factory) findUserConfigDirs() (fromEnv, trusted, relocated string) {
	if f.Trusted.UserDir != "" {
		return f.Trusted.UserDir, f.Trusted.UserDir, ""
	}
	base := f.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		if h := f.userHome(); h != "" {
			base = filepath.Join(h, ".config")
		}
	}
	if base != "" && filepath.IsAbs(base) {
		fromEnv = filepath.Join(base, "mcode")
	}
	if fromEnv != "" && !f.callerWritable(fromEnv) {
		return fromEnv, fromEnv, ""
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		if own := filepath.Join(u.HomeDir, ".config", "mcode"); own != fromEnv && !f.callerWritable(own) {
			trusted = own
		}
	}
	return fromEnv, trusted, fromEnv
}

// callerWritable says whether the caller can write p without a person:
// what the default sandbox leaves writable to a command (the workspace,
// the temporary folders, the toolchain caches: sandbox.CallerWritable),
// and the shared temporary folders a caller outside the sandbox can
// write too.
func (f *Factory) callerWritable(p string) bool {
	f.callerPlacesOnce.Do(func() {
		places := []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir(), f.Getenv("TMPDIR")}
		if root, err := f.RootDir(); err == nil {
			f.callerPlaces = sandbox.New(sandbox.Inputs{Root: root, DataDir: f.HomeDir(), Getenv: f.Getenv,
				UserHome: f.userHome(), Config: config.Defaults().Sandbox})
			places = append(places, root)
		}
		for _, place := range places {
			if filepath.IsAbs(place) {
				f.sharedPlaces = append(f.sharedPlaces, guard.Resolve(filepath.Clean(place), false))
			}
		}
	})
	if f.callerPlaces != nil && f.callerPlaces.CallerWritable(p) {
		return true
	}
	real := guard.Resolve(filepath.Clean(p), false)
	for _, place := range f.sharedPlaces {
		if withinDir(real, place) {
			return true
		}
	}
	return false
}

// withinDir says whether p is dir or below it.
func withinDir(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// wideRoot says why the workspace root is too wide to be one, or "":
// the file system's root, the home folder itself, or a folder that holds
// the home folder or the person's config folder (writes inside the root
// need no approval, so such a root would let a caller rewrite the
// person's own settings).
func (f *Factory) wideRoot(root string) string {
	real := guard.Resolve(root, false)
	if real == "/" {
		return fmt.Sprintf("the workspace root is %s, the whole file system", root)
	}
	homes := []string{f.userHome()}
	if u, err := user.Current(); err == nil {
		homes = append(homes, u.HomeDir)
	}
	for _, h := range homes {
		if h != "" && withinDir(guard.Resolve(h, false), real) {
			return fmt.Sprintf("the workspace root %s is or holds the home folder %s", root, h)
		}
	}
	if _, dir, _ := f.userConfigDirs(); dir != "" && withinDir(guard.Resolve(dir, false), real) {
		return fmt.Sprintf("the workspace root %s holds the person's config folder %s", root, dir)
	}
	return ""
}

// outsideRoots refuses a workspace root outside workspace.roots, when the
// person's config lists them.
func outsideRoots(root string, roots []string, abs func(string) string) error {
	if len(roots) == 0 {
		return nil
	}
	real := guard.Resolve(root, false)
	for _, r := range roots {
		if withinDir(real, guard.Resolve(abs(r), false)) {
			return nil
		}
	}
	return &tool.Error{Code: tool.CodeDenied,
		Message: fmt.Sprintf("the workspace root %s is outside the folders mcode may work in (workspace.roots: %s)", root, strings.Join(roots, ", ")),
		Hint:    "work in one of those folders (--root or the current folder), or ask the person to add this one to workspace.roots in their config"}
}

// personHomePath resolves a path of the person's config: ~/ is the home
// folder of the user database, never $HOME, which the caller sets.
func personHomePath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if u, err := user.Current(); err == nil {
			return filepath.Join(u.HomeDir, rest)
		}
	}
	return filepath.Clean(p)
}
