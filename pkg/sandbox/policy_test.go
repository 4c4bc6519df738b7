package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
)

func TestModes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		bad  bool
	}{{"", WorkspaceWrite, false}, {"read-only", ReadOnly, false}, {"danger-full-access", DangerFullAccess, false}, {"yolo", "", true}} {
		got, err := ParseMode(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, got, err)
		}
	}
	if !DangerFullAccess.LooserThan(WorkspaceWrite) || !WorkspaceWrite.LooserThan(ReadOnly) || ReadOnly.LooserThan(WorkspaceWrite) || WorkspaceWrite.LooserThan(WorkspaceWrite) {
		t.Error("LooserThan does not order read-only < workspace-write < danger-full-access")
	}
	if Strictest(DangerFullAccess, ReadOnly) != ReadOnly || Strictest(WorkspaceWrite, DangerFullAccess) != WorkspaceWrite {
		t.Error("Strictest")
	}
}

func TestParseNetwork(t *testing.T) {
	if n := ParseNetwork(nil); n.Policy != NetworkOn {
		t.Errorf("empty: %+v", n)
	}
	if n := ParseNetwork([]string{"off"}); n.Policy != NetworkOff {
		t.Errorf("off: %+v", n)
	}
	n := ParseNetwork([]string{"api.github.com:443", ":22", "8080", "[::1]:443"})
	if n.Policy != NetworkAllow || !slices.Equal(n.Ports, []uint16{22, 443, 8080}) || len(n.Allow) != 4 {
		t.Errorf("allowlist: %+v", n)
	}
	if s := stricterNetwork(ParseNetwork([]string{"443", "22"}), ParseNetwork([]string{"22"})); !slices.Equal(s.Ports, []uint16{22}) {
		t.Errorf("two allowlists keep what both allow: %+v", s)
	}
	if s := stricterNetwork(ParseNetwork([]string{"443"}), ParseNetwork([]string{"off"})); s.Policy != NetworkOff {
		t.Errorf("off beats an allowlist: %+v", s)
	}
}

// outsideTmp is a fresh folder outside every writable place: t.TempDir
// is under /tmp, which the sandbox makes writable.
func outsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "mcode-sandbox-")
	if err != nil {
		t.Skipf("no /var/tmp for a folder outside the writable set: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// layout is a workspace and a home, outside the writable places.
func layout(t *testing.T) (root, home string) {
	t.Helper()
	base := outsideTmp(t)
	root, home = filepath.Join(base, "ws"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(root, ".git", "hooks"), filepath.Join(home, ".ssh"), filepath.Join(home, ".cache"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644)
	return root, home
}

func getenvOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestEnvironmentCannotWiden: the caller controls the environment, so a
// place an environment variable names is writable only inside the
// workspace, the temp folders or the user's cache, and never when it is
// or holds a home, a config folder, a secret or mcode's data.
func TestEnvironmentCannotWiden(t *testing.T) {
	root, home := layout(t)
	data := filepath.Join(home, ".local", "share", "mcode")
	for _, c := range []struct {
		name, value string
		writable    bool
	}{
		{"TMPDIR", "/var/tmp/mcode-test-tmp", true},
		{"TMPDIR", filepath.Join(root, "tmp"), true},
		{"GOCACHE", filepath.Join(home, ".cache", "go2"), true},
		{"TMPDIR", filepath.Join(home, ".local", "bin"), false}, // on PATH: a planted program runs later
		{"TMPDIR", "/usr/local/bin", false},
		{"TMPDIR", "/", false},
		{"XDG_CACHE_HOME", home, false},
		{"XDG_CACHE_HOME", filepath.Join(home, ".config"), false},
		{"GOCACHE", filepath.Join(home, ".config", "git"), false},
		{"GOMODCACHE", filepath.Join(home, ".ssh"), false},
		{"npm_config_cache", data, false},
		{"TMPDIR", "/etc", false},
		{"GOPATH", "/opt/go", false},
	} {
		p := New(Inputs{Root: root, DataDir: data, UserHome: home, Config: config.Defaults().Sandbox,
			Getenv: getenvOf(map[string]string{c.name: c.value, "HOME": home})})
		check := c.value
		if c.name == "GOPATH" {
			check = filepath.Join(c.value, "pkg")
		}
		got := false
		for _, w := range p.Writable {
			if w.Path == Resolve(check, false) {
				got = true
			}
		}
		if got != c.writable {
			t.Errorf("%s=%s: writable %v, want %v (refused: %+v)", c.name, c.value, got, c.writable, p.Refused)
		}
		if !c.writable && len(p.Refused) == 0 {
			t.Errorf("%s=%s: refused without saying so", c.name, c.value)
		}
	}
}

// TestCallerWritable is the question the config loader asks: a user
// config that XDG_CONFIG_HOME moved into /tmp is the caller's.
func TestCallerWritable(t *testing.T) {
	root, home := layout(t)
	p := New(Inputs{Root: root, UserHome: home, Config: config.Defaults().Sandbox, Getenv: getenvOf(map[string]string{"HOME": home})})
	for path, want := range map[string]bool{
		"/tmp/evil/mcode/config.yaml":                              true,
		filepath.Join(root, "conf", "config.yaml"):                 true,
		filepath.Join(home, ".config", "mcode", "config.yaml"):     false,
		"/etc/mcode/config.yaml":                                   false,
		filepath.Join(home, ".cache", "x", "mcode", "config.yaml"): true,
		"/dev/null": false,
	} {
		if got := p.CallerWritable(path); got != want {
			t.Errorf("CallerWritable(%s) = %v, want %v", path, got, want)
		}
	}
	ro := New(Inputs{Root: root, UserHome: home, Config: config.Sandbox{Mode: "read-only"}})
	if ro.CallerWritable(filepath.Join(root, "x")) {
		t.Error("read-only: the workspace is not the caller's to write")
	}
}

func TestCanWriteAndRead(t *testing.T) {
	root, home := layout(t)
	data := filepath.Join(root, ".mcode-home")
	p := New(Inputs{Root: root, DataDir: data, UserHome: home, Config: config.Sandbox{Mode: "workspace-write", ReadDeny: []string{"~/private"}},
		Getenv: getenvOf(map[string]string{"HOME": home})})
	for path, want := range map[string]bool{
		filepath.Join(root, "src", "x.go"):             true,
		filepath.Join(root, ".git", "index"):           true,
		filepath.Join(root, ".git", "hooks", "pre"):    false,
		filepath.Join(root, ".git", "config"):          false,
		filepath.Join(root, ".mcode.yaml"):             false,
		filepath.Join(data, "approvals", "a.json"):     false,
		filepath.Join(data, "audit.jsonl"):             false,
		filepath.Join(home, ".bashrc"):                 false,
		filepath.Join(home, ".cache", "go-build", "x"): true,
		"/tmp/x":       true,
		"/etc/passwd":  false,
		"/dev/null":    true,
		"/dev/nullish": false,
	} {
		ok, why := p.CanWrite(path)
		if ok != want {
			t.Errorf("CanWrite(%s) = %v (%s), want %v", path, ok, why, want)
		}
		if !ok && !strings.Contains(why, path) {
			t.Errorf("CanWrite(%s): the reason does not name it: %s", path, why)
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(home, ".ssh", "id_rsa"):         false,
		filepath.Join(home, "private", "notes"):       false, // sandbox.readDeny
		filepath.Join(home, ".config", "gh", "hosts"): false,
		filepath.Join(home, ".profile"):               true,
		"/etc/hostname":                               true,
	} {
		if ok, why := p.CanRead(path); ok != want {
			t.Errorf("CanRead(%s) = %v (%s), want %v", path, ok, why, want)
		}
	}
	if ok, _ := New(Inputs{Root: root, UserHome: home, Config: config.Sandbox{Mode: "danger-full-access"}}).CanWrite("/etc/passwd"); !ok {
		t.Error("danger-full-access writes anywhere")
	}
}

// TestLinkedWorktree: git commit in a linked worktree writes its git
// folders, which are made writable only when they point back at it.
func TestLinkedWorktree(t *testing.T) {
	base := outsideTmp(t)
	main, ws := filepath.Join(base, "main"), filepath.Join(base, "wt")
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	os.MkdirAll(gitdir, 0o755)
	os.MkdirAll(filepath.Join(main, ".git", "hooks"), 0o755)
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(gitdir, "gitdir"), []byte(filepath.Join(ws, ".git")+"\n"), 0o644)
	p := New(Inputs{Root: ws, UserHome: base, Config: config.Defaults().Sandbox})
	if ok, why := p.CanWrite(filepath.Join(main, ".git", "objects", "ab", "cd")); !ok {
		t.Errorf("the common git folder is not writable: %s", why)
	}
	if ok, _ := p.CanWrite(filepath.Join(main, ".git", "hooks", "pre-commit")); ok {
		t.Error("the common hooks are writable")
	}
	if ok, _ := p.CanWrite(filepath.Join(main, "README")); ok {
		t.Error("the main worktree's files are writable")
	}
	// What redirects git, run later outside the sandbox, to a config and
	// hooks of the command's making: the links (the worktree's .git,
	// commondir, gitdir) and the per-worktree configs are held; the
	// worktree's git folder and the folder of worktrees cannot be moved
	// aside and replaced.
	for _, f := range []string{filepath.Join(ws, ".git"), filepath.Join(gitdir, "commondir"), filepath.Join(gitdir, "gitdir"),
		filepath.Join(gitdir, "config.worktree"), filepath.Join(main, ".git", "config.worktree"), filepath.Join(main, ".git", "config")} {
		if ok, _ := p.CanWrite(f); ok {
			t.Errorf("%s is writable", f)
		}
	}
	os.WriteFile(filepath.Join(gitdir, "HEAD"), []byte("ref: refs/heads/wt\n"), 0o644)
	os.WriteFile(filepath.Join(main, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(main, ".git", "config"), []byte(""), 0o644)
	pl := p.Plan()
	for _, d := range []string{gitdir, filepath.Join(main, ".git", "worktrees")} {
		if !slices.Contains(pl.Pin, d) {
			t.Errorf("%s is not pinned: %v", d, pl.Pin)
		}
	}
	for _, f := range []string{filepath.Join(gitdir, "commondir"), filepath.Join(gitdir, "config.worktree"), filepath.Join(main, ".git", "config.worktree")} {
		if !slices.Contains(pl.Protect, f) {
			t.Errorf("%s is not held (a missing config.worktree is made, empty, to be held): %v", f, pl.Protect)
		}
	}
	// A .git file the caller wrote, naming another repository without
	// its link back, widens nothing.
	os.WriteFile(filepath.Join(gitdir, "gitdir"), []byte("/elsewhere/.git\n"), 0o644)
	p = New(Inputs{Root: ws, UserHome: base, Config: config.Defaults().Sandbox})
	if ok, _ := p.CanWrite(filepath.Join(main, ".git", "objects", "x")); ok {
		t.Error("a forged .git file made another repository writable")
	}
}

// TestPlanGrantsWithoutWalking: read is granted entry by entry only on
// the way to the secrets, which get no rule; /dev only its safe devices.
func TestPlanGrantsWithoutWalking(t *testing.T) {
	root, home := layout(t)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte(""), 0o644)
	os.MkdirAll(filepath.Join(root, "deep", "a", "b", "c"), 0o755)
	trash := filepath.Join(home, ".local", "share", "Trash")
	p := New(Inputs{Root: root, UserHome: home, Config: config.Defaults().Sandbox, Getenv: getenvOf(map[string]string{"HOME": home}),
		TrashDirs: []string{trash}})
	pl := p.Plan()
	rules := map[string]Access{}
	for _, r := range pl.Rules {
		rules[r.Path] |= r.Access
	}
	if _, ok := rules[filepath.Join(home, ".ssh")]; ok {
		t.Error("~/.ssh has a rule")
	}
	if rules[filepath.Join(home, ".bashrc")]&AccessRead == 0 || rules[home] != AccessList {
		t.Errorf("the home's entries are not granted one by one: home %v, .bashrc %v", rules[home], rules[filepath.Join(home, ".bashrc")])
	}
	if rules[root]&AccessWrite == 0 {
		t.Error("the workspace is not writable")
	}
	for path := range rules {
		if strings.HasPrefix(path, filepath.Join(root, "deep")) {
			t.Errorf("the plan walked the workspace: %s", path)
		}
		if strings.HasPrefix(path, "/dev/") && !slices.Contains(readableDevices, path) && !slices.Contains(writableDevices, path) {
			t.Errorf("a device outside the allowed ones is granted: %s", path)
		}
	}
	if rules[trash]&AccessWrite == 0 {
		t.Error("the home trash, made for the rm shim, is not writable")
	}
	if _, ok := rules["/dev/null"]; !ok {
		t.Error("/dev/null is not granted")
	}
	if !slices.Contains(pl.Protect, filepath.Join(root, ".git", "hooks")) || !slices.Contains(pl.Pin, filepath.Join(root, ".git")) {
		t.Errorf("protect %v, pin %v", pl.Protect, pl.Pin)
	}
	if New(Inputs{Root: root, Config: config.Sandbox{Mode: "danger-full-access"}}).Plan() != nil {
		t.Error("danger-full-access has a plan")
	}
}

func TestOverride(t *testing.T) {
	global := config.Sandbox{Mode: "workspace-write", Network: []string{"off"}, Writable: []string{"/a"}}
	got := Override(global, config.Sandbox{Network: []string{"443"}, Writable: []string{"/b"}})
	if got.Mode != "workspace-write" || !slices.Equal(got.Network, []string{"443"}) || !slices.Equal(got.Writable, []string{"/a", "/b"}) {
		t.Errorf("Override = %+v", got)
	}
	if !slices.Equal(global.Writable, []string{"/a"}) {
		t.Error("Override changed the global section")
	}
}

// TestPlantedLinkCannotWiden: a place named by the caller's environment
// that a link in the workspace turns into the config folder stays
// read-only (what counts is where it leads).
func TestPlantedLinkCannotWiden(t *testing.T) {
	root, home := layout(t)
	fake := filepath.Join(root, "fakehome")
	os.MkdirAll(filepath.Join(fake, ".local", "share"), 0o755)
	os.Symlink(filepath.Join(home, ".config"), filepath.Join(fake, ".local", "share", "Trash"))
	os.Symlink(filepath.Join(home, ".config"), filepath.Join(root, "cache-link"))
	p := New(Inputs{Root: root, UserHome: home, Config: config.Defaults().Sandbox,
		TrashDirs: []string{filepath.Join(fake, ".local", "share", "Trash")},
		Getenv:    getenvOf(map[string]string{"HOME": fake, "GOCACHE": filepath.Join(root, "cache-link")})})
	if ok, _ := p.CanWrite(filepath.Join(home, ".config", "mcode", "config.yaml")); ok {
		t.Errorf("a link planted in the workspace made the config folder writable: %+v", p.Writable)
	}
	if len(p.Refused) < 2 {
		t.Errorf("the refusals are not said: %+v", p.Refused)
	}
}

// TestResolveBelowMissingFolders: the resolver skips the stats below a
// folder it found absent, and still follows a link into one.
func TestResolveBelowMissingFolders(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone", "x"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	var r resolver
	for in, want := range map[string]string{
		filepath.Join(dir, "missing", "a", "b"): filepath.Join(dir, "missing", "a", "b"),
		filepath.Join(dir, "missing", "a"):      filepath.Join(dir, "missing", "a"),
		filepath.Join(dir, "link", "sub"):       filepath.Join(real, "sub"),
		filepath.Join(dir, "link", "none", "c"): filepath.Join(real, "none", "c"),
		filepath.Join(dir, "dangling", "y"):     filepath.Join(dir, "gone", "x", "y"),
		filepath.Join(dir, "dangling"):          filepath.Join(dir, "gone", "x"),
	} {
		if got := r.real(in, 0); got != want {
			t.Errorf("real(%s) = %s, want %s", in, got, want)
		}
		if got := Resolve(in, false); got != want {
			t.Errorf("Resolve(%s) = %s, want %s", in, got, want)
		}
	}
	if !r.missing[filepath.Join(dir, "missing", "a", "b")] || !r.missing[filepath.Join(dir, "gone", "x", "y")] {
		t.Errorf("missing = %v: the paths below an absent folder are not known absent", r.missing)
	}
}
