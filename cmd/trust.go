package cmd

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/mcode-dev/mcode/pkg/guard"
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
// the workspace root and the temporary folders, which the sandbox leaves
// writable too.
func (f *Factory) callerWritable(p string) bool {
	real := guard.Resolve(filepath.Clean(p), false)
	places := []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir(), f.Getenv("TMPDIR")}
	if root, err := f.RootDir(); err == nil {
		places = append(places, root)
	}
	for _, place := range places {
		if place == "" || !filepath.IsAbs(place) {
			continue
		}
		if withinDir(real, guard.Resolve(filepath.Clean(place), false)) {
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
