package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// Access is what a rule of a plan grants on a folder or a file and, for
// a folder, on everything beneath it.
type Access uint8

const (
	// AccessList lists a folder's names: the folders on the way to a
	// hidden secret, whose other entries are granted one by one.
	AccessList Access = 1 << iota
	// AccessRead reads files, lists folders and runs programs.
	AccessRead
	// AccessWrite adds creating, changing, renaming and removing.
	AccessWrite
)

// Rule grants access on one path.
type Rule struct {
	Path   string `json:"p"`
	Access Access `json:"a"`
}

// Plan is what the kernel is handed for one run: rules on folders and
// files (never a walk of the tree), the protected paths to hold
// read-only, the network. It travels as JSON to the process that starts
// the command.
type Plan struct {
	Mode  Mode   `json:"mode"`
	Rules []Rule `json:"rules"`
	// Protect are existing protected paths inside writable places, held
	// read-only by read-only bind mounts where the process may mount.
	Protect []string `json:"protect,omitempty"`
	// Pin are folders made mount points of themselves, so that a command
	// cannot move them away with the protected paths inside and put a
	// copy it controls in their place.
	Pin []string `json:"pin,omitempty"`
	// NetOff refuses every socket but local ones; Ports, when set, are
	// the only TCP ports a connect may reach.
	NetOff bool     `json:"net_off,omitempty"`
	Ports  []uint16 `json:"ports,omitempty"`
	// NetAllow is the allowlist as written.
	NetAllow []string `json:"net_allow,omitempty"`
	// Writable, Hidden and Held are the policy's writable set, secrets
	// and protected paths as they are (existing or not), for macOS's
	// profile, which names paths where Linux needs rules on what exists.
	Writable []Place  `json:"writable,omitempty"`
	Hidden   []string `json:"hidden,omitempty"`
	Held     []string `json:"held,omitempty"`
}

// Plan computes the kernel's rules. Read access is granted on everything
// but the secrets: the folders on the way to each secret are listed (the
// root folder, the home folder, ~/.config, …) and their other entries
// granted one by one, since the kernel grants and cannot subtract. /dev
// is granted entry by entry too: the terminal and the null devices, no
// disks. A missing .git/hooks in an existing .git, and mcode's approvals
// folder and audit log inside a writable place, are made first (empty,
// as git and mcode would make them) so that they can be held read-only.
// It returns nil for danger-full-access.
func (p *Policy) Plan() *Plan {
	if p.Mode == DangerFullAccess {
		return nil
	}
	pl := &Plan{Mode: p.Mode}
	switch p.Network.Policy {
	case NetworkOff:
		pl.NetOff = true
	case NetworkAllow:
		pl.Ports = slices.Clone(p.Network.Ports)
		pl.NetAllow = slices.Clone(p.Network.Allow)
		if len(pl.Ports) == 0 {
			pl.NetOff = true
		}
	}
	if runtime.GOOS == "darwin" {
		pl.Writable, pl.Hidden, pl.Held = slices.Clone(p.Writable), slices.Clone(p.Secrets), slices.Clone(p.Protected)
		return pl
	}
	p.readRules(pl)
	for _, w := range p.Writable {
		if w.Kind == KindTrash {
			// The rm shim's first deletion would make it: made here, a
			// rule can grant it.
			_ = os.MkdirAll(w.Path, 0o700)
		}
		if _, err := os.Lstat(w.Path); err == nil {
			pl.Rules = append(pl.Rules, Rule{Path: w.Path, Access: AccessRead | AccessWrite})
		}
	}
	if p.Mode == WorkspaceWrite {
		p.protectPlan(pl)
	}
	return pl
}

// readRules grants reading on everything but the secrets.
func (p *Policy) readRules(pl *Plan) {
	hide := map[string]bool{}
	walk := map[string]bool{"/dev": true}
	for _, s := range p.Secrets {
		hide[s] = true
		for d := filepath.Dir(s); ; d = filepath.Dir(d) {
			walk[d] = true
			if d == "/" || d == "." {
				break
			}
		}
	}
	var list func(dir string)
	list = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return // unreadable: nothing below it is granted
		}
		pl.Rules = append(pl.Rules, Rule{Path: dir, Access: AccessList})
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if hide[path] {
				continue
			}
			typ := e.Type()
			if typ&fs.ModeSymlink != 0 {
				continue // its target has rules of its own
			}
			if dir == "/dev" {
				if slices.Contains(readableDevices, path) {
					pl.Rules = append(pl.Rules, Rule{Path: path, Access: AccessRead})
				}
				continue // the writable devices come with the writable set
			}
			if walk[path] && typ.IsDir() {
				list(path)
				continue
			}
			pl.Rules = append(pl.Rules, Rule{Path: path, Access: AccessRead})
		}
	}
	list("/")
}

// protectPlan lists the protected paths and pinned folders that lie in a
// writable place.
func (p *Policy) protectPlan(pl *Plan) {
	inWritable := func(path string) bool {
		for _, w := range p.Writable {
			if w.Kind != KindDevice && !w.File && within(path, w.Path) {
				return true
			}
		}
		return false
	}
	for _, d := range p.Pinned {
		if inWritable(d) {
			if hooks := filepath.Join(d, "hooks"); !exists(hooks) && exists(filepath.Join(d, "config")) {
				_ = os.Mkdir(hooks, 0o755)
			}
			pl.Pin = append(pl.Pin, d)
		}
	}
	if p.dataDir != "" && inWritable(p.dataDir) {
		_ = os.MkdirAll(filepath.Join(p.dataDir, "approvals"), 0o700)
		if f, err := os.OpenFile(filepath.Join(p.dataDir, "audit.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Close()
		}
	}
	for _, pr := range p.Protected {
		// A config.worktree that is not there could be created, and
		// counts once extensions.worktreeConfig is on: an empty one
		// (which changes nothing) is put there to be held.
		if filepath.Base(pr) == "config.worktree" && inWritable(pr) && !exists(pr) && exists(filepath.Join(filepath.Dir(pr), "HEAD")) {
			if f, err := os.OpenFile(pr, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if inWritable(pr) && exists(pr) {
			pl.Protect = append(pl.Protect, pr)
		}
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// String sums a plan up for a log line.
func (pl *Plan) String() string {
	if pl == nil {
		return "no sandbox"
	}
	w := 0
	for _, r := range pl.Rules {
		if r.Access&AccessWrite != 0 {
			w++
		}
	}
	return fmt.Sprintf("%s, %d rules (%d writable), %d protected", pl.Mode, len(pl.Rules), w, len(pl.Protect))
}
