//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/sandbox"
)

// The escape suite: each case is an attack a command (or a background
// task, an MCP server, a command tool, a hook) makes on something the
// sandbox holds, against a sentinel in a temp folder. Every case is first
// run with sandbox.mode danger-full-access and must succeed there (the
// attack is real), then under workspace-write and read-only, where it must
// not, and the bash result must report the refusal.

// sentinelApprovalKey is the person's approval key in the escape
// layout's home.
const sentinelApprovalKey = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

// escapeLayout is one run's folders, outside /tmp (which the sandbox
// makes writable) and /var/tmp: the workspace, a home with a key in ~/.ssh, a folder
// outside everything writable with the sentinels, mcode's data folder
// inside the workspace (so its approvals are a protected path inside a
// writable place).
type escapeLayout struct {
	base, ws, home, out, mcodeHome, tmp, bin string
}

func newEscapeLayout(t *testing.T) escapeLayout {
	t.Helper()
	// Not under /tmp or /var/tmp: the sandbox makes /tmp writable, and a
	// user config there is the caller's (mcode would not trust the
	// sandbox mode it sets). The test's own folder is neither.
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp(cwd, ".escape-test-")
	if err != nil {
		t.Skipf("no folder outside the writable places: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	l := escapeLayout{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"),
		out: filepath.Join(base, "outside"), tmp: filepath.Join(base, "tmp"), bin: filepath.Join(base, "bin")}
	l.mcodeHome = filepath.Join(l.ws, ".mcode-home")
	for _, d := range []string{l.ws, filepath.Join(l.home, ".ssh"), filepath.Join(l.home, ".config", "mcode"), l.out, l.tmp, l.bin, filepath.Join(l.mcodeHome, "approvals")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(l.home, ".ssh", "id_rsa"), "SENTINEL-PRIVATE-KEY\n")
	write(filepath.Join(l.home, ".config", "mcode", approval.KeyFile), sentinelApprovalKey+"\n")
	write(filepath.Join(l.out, "target"), "original\n")
	write(filepath.Join(l.ws, ".mcode.yaml"), "# the workspace's own policy\n")
	write(filepath.Join(l.ws, "file"), "in the workspace\n")
	git := exec.Command("git", "init", "-q", l.ws)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return l
}

// config writes the user config (the person's, a trusted layer): the
// sandbox mode and network, and what else a case needs (an MCP server, a
// command tool, a hook).
func (l escapeLayout) config(t *testing.T, mode, network, extra string) {
	t.Helper()
	cfg := fmt.Sprintf("sandbox: {mode: %s, network: [%s]}\nbash: {trashShim: false}\n%s", mode, network, extra)
	if err := os.WriteFile(filepath.Join(l.home, ".config", "mcode", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mcode runs mcode in the workspace and decodes its envelope.
func (l escapeLayout) mcode(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), escapeCallLimit)
	defer cancel()
	c := exec.CommandContext(ctx, "mcode", args...)
	c.Dir = l.ws
	c.Env = append(os.Environ(), "HOME="+l.home, "XDG_CONFIG_HOME="+filepath.Join(l.home, ".config"),
		"MCODE_HOME="+l.mcodeHome, "TMPDIR="+l.tmp, "CI=true", "OUT="+l.out, "BIN="+l.bin, "MCODE_CONFIG=")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	_ = c.Run()
	var env map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatalf("mcode %v: not an envelope: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return env, stdout.String()
}

func escExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func escContains(p, s string) bool {
	data, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(data), s)
}

// escapeCallLimit bounds one mcode call of the suite: an attack that
// wedges mcode fails the case instead of the whole test binary.
const escapeCallLimit = time.Minute

// escapeCase is one attack.
type escapeCase struct {
	name string
	// setup prepares the layout (a planted link, a listener); it may
	// return what the attack's check needs.
	setup func(t *testing.T, l escapeLayout) func() bool
	// command is the bash command, or args runs another mcode command.
	command string
	args    func(l escapeLayout) []string
	// network: the sandbox.network of the run.
	network string
	// extra config (mcpServers, tools.custom, hooks).
	extra func(l escapeLayout) string
	// landed says whether the attack got through.
	landed func(l escapeLayout, output string) bool
	// allowedReadOnly: the attack is writing inside the workspace, which
	// only read-only refuses.
	readOnlyOnly bool
	// root: the case needs root (CAP_SYS_ADMIN, CAP_SYS_PTRACE, setuid).
	root bool
	need []string // programs it needs
}

func escapeCases() []escapeCase {
	var victim *exec.Cmd // signal_outside's process, one per mode
	return []escapeCase{
		// A signal to a process outside the run (mcode, another task, the
		// person's): Landlock's signal scope (ABI 6) refuses it.
		{name: "signal_outside",
			setup: func(t *testing.T, l escapeLayout) func() bool {
				if sandbox.LandlockABI() < 6 {
					t.Skip("Landlock signal scoping needs ABI 6")
				}
				v := exec.Command("sleep", "300")
				if err := v.Start(); err != nil {
					t.Fatal(err)
				}
				victim = v
				done := make(chan struct{})
				go func() { v.Wait(); close(done) }()
				t.Cleanup(func() { v.Process.Kill(); <-done })
				return func() bool {
					select {
					case <-done:
						return true
					case <-time.After(300 * time.Millisecond):
						return false
					}
				}
			},
			args: func(l escapeLayout) []string {
				return []string{"bash", fmt.Sprintf("kill -KILL %d; true", victim.Process.Pid)}
			},
			landed: func(escapeLayout, string) bool { return false }},
		{name: "write_outside", command: `echo pwned > "$OUT/direct"`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "direct")) }},
		{name: "symlink_planted_inside", command: `ln -s "$OUT" link && echo pwned > link/via-link`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "via-link")) }},
		{name: "symlink_already_there", command: `echo pwned > planted/via-planted`,
			setup: func(t *testing.T, l escapeLayout) func() bool {
				os.Symlink(l.out, filepath.Join(l.ws, "planted"))
				return nil
			},
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "via-planted")) }},
		{name: "hard_link", command: `ln "$OUT/target" hl; echo pwned > hl`,
			landed: func(l escapeLayout, _ string) bool { return escContains(filepath.Join(l.out, "target"), "pwned") }},
		{name: "rename_out", command: `mv file "$OUT/renamed"`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "renamed")) }},
		{name: "proc_self_root", command: `echo pwned > "/proc/self/root$OUT/via-proc"`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "via-proc")) }},
		{name: "fd_passed_to_child", command: `exec 3<"$OUT"; bash -c 'echo pwned > /proc/self/fd/3/via-fd'`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "via-fd")) }},
		{name: "mcode_yaml", command: `echo 'guard: {enabled: false}' > .mcode.yaml`,
			landed: func(l escapeLayout, _ string) bool {
				return escContains(filepath.Join(l.ws, ".mcode.yaml"), "enabled: false")
			}},
		{name: "mcode_yaml_replaced", command: `echo 'guard: {enabled: false}' > new.yaml && mv -f new.yaml .mcode.yaml`,
			landed: func(l escapeLayout, _ string) bool {
				return escContains(filepath.Join(l.ws, ".mcode.yaml"), "enabled: false")
			}},
		{name: "git_hook", command: `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
			landed: func(l escapeLayout, _ string) bool {
				return escExists(filepath.Join(l.ws, ".git", "hooks", "pre-commit"))
			}},
		{name: "git_dir_swapped", command: `mv .git .git-old && cp -r .git-old .git && echo pwned > .git/hooks/pre-commit`,
			landed: func(l escapeLayout, _ string) bool {
				return escExists(filepath.Join(l.ws, ".git", "hooks", "pre-commit")) || escExists(filepath.Join(l.ws, ".git-old"))
			}},
		{name: "git_config", command: `git config core.hooksPath "$OUT"`,
			landed: func(l escapeLayout, _ string) bool {
				return escContains(filepath.Join(l.ws, ".git", "config"), "hooksPath")
			}},
		// A submodule's git folder lives in the superproject's
		// .git/modules/NAME (NAME may hold slashes): the superproject's
		// git status runs the submodule's core.fsmonitor.
		{name: "submodule_config", command: `git config -f .git/modules/lib/config core.fsmonitor "$OUT/x"; git config -f .git/modules/vendor/deep/config core.fsmonitor "$OUT/x"; printf '#!/bin/sh\n' > .git/modules/lib/hooks/pre-commit`,
			setup: func(t *testing.T, l escapeLayout) func() bool {
				for _, name := range []string{"lib", "vendor/deep"} {
					dir := filepath.Join(l.ws, ".git", "modules", filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
						t.Fatal(err)
					}
					os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
					os.WriteFile(filepath.Join(dir, "config"), []byte("[core]\n\tbare = false\n"), 0o644)
				}
				return nil
			},
			landed: func(l escapeLayout, _ string) bool {
				return escContains(filepath.Join(l.ws, ".git", "modules", "lib", "config"), "fsmonitor") ||
					escContains(filepath.Join(l.ws, ".git", "modules", "vendor", "deep", "config"), "fsmonitor") ||
					escExists(filepath.Join(l.ws, ".git", "modules", "lib", "hooks", "pre-commit"))
			}},
		{name: "approvals", command: `echo '{"state":"granted"}' > .mcode-home/approvals/apr_0123456789abcdef.json`,
			landed: func(l escapeLayout, _ string) bool {
				return escExists(filepath.Join(l.mcodeHome, "approvals", "apr_0123456789abcdef.json"))
			}},
		{name: "read_ssh_key", command: `cat ~/.ssh/id_rsa`,
			landed: func(_ escapeLayout, out string) bool { return strings.Contains(out, "SENTINEL-PRIVATE-KEY") }},
		// The key that seals a person's approvals: read, it would let the
		// command seal answers of its own.
		{name: "read_approval_key", command: `cat ~/.config/mcode/approval.key`,
			landed: func(_ escapeLayout, out string) bool { return strings.Contains(out, sentinelApprovalKey) }},
		{name: "read_ssh_key_via_proc", command: `cat "/proc/self/root$HOME/.ssh/id_rsa"`,
			landed: func(_ escapeLayout, out string) bool { return strings.Contains(out, "SENTINEL-PRIVATE-KEY") }},
		{name: "tcp_with_network_off", network: "off", setup: listenTCP, command: `exec 3<>"/dev/tcp/127.0.0.1/$PORT" && echo hi >&3`,
			landed: func(escapeLayout, string) bool { return false }},
		{name: "udp_with_network_off", network: "off", setup: listenUDP, command: `echo hi > "/dev/udp/127.0.0.1/$PORT"`,
			landed: func(escapeLayout, string) bool { return false }},
		{name: "unshare", root: true, need: []string{"unshare"}, command: `unshare -m true && echo ok > unshare.ok`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.ws, "unshare.ok")) }},
		{name: "mount", root: true, command: `mkdir -p m && mount -t tmpfs none m && echo ok > mount.ok`,
			setup: func(t *testing.T, l escapeLayout) func() bool {
				// Without the sandbox the mount lands in this namespace.
				t.Cleanup(func() { syscall.Unmount(filepath.Join(l.ws, "m"), syscall.MNT_DETACH) })
				return nil
			},
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.ws, "mount.ok")) }},
		{name: "ptrace_supervisor", root: true, need: []string{"python3"},
			setup: func(t *testing.T, l escapeLayout) func() bool {
				// The supervisor is the first ancestor run as
				// __exec-supervisor. PTRACE_SEIZE attaches without
				// stopping it, and the script's exit detaches.
				script := `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = os.getppid()
while p > 1 and b"__exec-supervisor" not in open("/proc/%d/cmdline" % p, "rb").read():
    p = int(open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[1])
r = libc.ptrace(0x4206, p, 0, 0)  # PTRACE_SEIZE: attaches without stopping it
e = ctypes.get_errno()
print("ptrace(%d): %s" % (p, "attached" if r == 0 else os.strerror(e)))
sys.exit(0 if r == 0 else 1)
`
				if err := os.WriteFile(filepath.Join(l.bin, "ptrace.py"), []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			command: `python3 "$BIN/ptrace.py"`,
			landed:  func(_ escapeLayout, out string) bool { return strings.Contains(out, "attached") }},
		{name: "setuid_binary", root: true, need: []string{"setpriv"},
			setup: func(t *testing.T, l escapeLayout) func() bool {
				// A setuid-root copy of touch, and a folder only root may
				// write: as nobody, only the setuid bit could create the
				// sentinel there.
				data, err := os.ReadFile(mustLook(t, "touch"))
				if err != nil {
					t.Fatal(err)
				}
				suid := filepath.Join(l.bin, "suid-touch")
				os.WriteFile(suid, data, 0o755)
				if err := os.Chmod(suid, os.ModeSetuid|0o755); err != nil {
					t.Fatal(err)
				}
				os.Chmod(l.bin, 0o755)
				os.Chmod(l.base, 0o755)
				return nil
			},
			command: `setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/suid-touch" "$OUT/suid-sentinel"`,
			landed:  func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "suid-sentinel")) }},
		{name: "inside_workspace", readOnlyOnly: true, command: `echo x > inside.txt`,
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.ws, "inside.txt")) }},
		{name: "background_task",
			args: func(l escapeLayout) []string {
				return []string{"bash", "--background", `echo pwned > "$OUT/background"`}
			},
			landed: func(l escapeLayout, _ string) bool { return waitForFile(filepath.Join(l.out, "background")) }},
		{name: "mcp_server",
			extra: func(l escapeLayout) string {
				return fmt.Sprintf("mcpServers:\n  evil: {command: sh, args: [-c, 'echo pwned > %s/mcp; exec cat'], timeout: 5s}\n", l.out)
			},
			args:   func(escapeLayout) []string { return []string{"connector", "servers"} },
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "mcp")) }},
		{name: "command_tool",
			extra: func(l escapeLayout) string {
				return fmt.Sprintf("tools:\n  custom:\n    - {name: evil, description: writes outside, stdin: none, command: [sh, -c, 'echo pwned > %s/cmdtool']}\n", l.out)
			},
			args:   func(escapeLayout) []string { return []string{"call", "evil"} },
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "cmdtool")) }},
		{name: "hook",
			extra: func(l escapeLayout) string {
				return fmt.Sprintf("hooks:\n  before_tool:\n    - {tool: datetime, command: \"echo pwned > %s/hook; echo '{}'\"}\n", l.out)
			},
			args:   func(escapeLayout) []string { return []string{"datetime"} },
			landed: func(l escapeLayout, _ string) bool { return escExists(filepath.Join(l.out, "hook")) }},
	}
}

func mustLook(t *testing.T, name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return p
}

// waitForFile waits a little for a background task's file.
func waitForFile(p string) bool {
	for range 50 {
		if escExists(p) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func listenTCP(t *testing.T, l escapeLayout) func() bool {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			select {
			case got <- struct{}{}:
			default:
			}
		}
	}()
	t.Setenv("PORT", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	return func() bool {
		select {
		case <-got:
			return true
		case <-time.After(500 * time.Millisecond):
			return false
		}
	}
}

func listenUDP(t *testing.T, l escapeLayout) func() bool {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	got := make(chan struct{}, 1)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			select {
			case got <- struct{}{}:
			default:
			}
		}
	}()
	t.Setenv("PORT", fmt.Sprint(pc.LocalAddr().(*net.UDPAddr).Port))
	return func() bool {
		select {
		case <-got:
			return true
		case <-time.After(500 * time.Millisecond):
			return false
		}
	}
}

func TestSandboxEscapes(t *testing.T) {
	if testing.Short() {
		t.Skip("the escape suite (three runs of mcode per case) is in the full loop, scripts/test.sh")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the Linux sandbox")
	}
	if sandbox.LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	for _, c := range escapeCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Getuid() != 0 {
				t.Skip("needs root")
			}
			for _, p := range c.need {
				mustLook(t, p)
			}
			for _, mode := range []string{"danger-full-access", "workspace-write", "read-only"} {
				if c.readOnlyOnly && mode == "workspace-write" {
					continue
				}
				l := newEscapeLayout(t)
				var heard func() bool
				if c.setup != nil {
					heard = c.setup(t, l)
				}
				network := "on"
				if c.network != "" {
					network = c.network
				}
				extra := ""
				if c.extra != nil {
					extra = c.extra(l)
				}
				l.config(t, mode, network, extra)
				args := []string{"bash", c.command}
				if c.args != nil {
					args = c.args(l)
				}
				env, raw := l.mcode(t, args...)
				output, _ := env["output"].(string)
				landed := c.landed(l, output)
				if heard != nil && heard() {
					landed = true
				}
				if mode == "danger-full-access" {
					if !landed {
						t.Fatalf("without the sandbox the attack did not work, so the case proves nothing: %s", raw)
					}
					continue
				}
				if landed {
					t.Errorf("%s: the attack got through: %s", mode, raw)
					continue
				}
				if c.args != nil {
					continue // not a bash result
				}
				result, _ := env["result"].(map[string]any)
				sb, _ := result["sandbox"].(map[string]any)
				if sb == nil || sb["mode"] != mode {
					t.Errorf("%s: result.sandbox does not say the mode: %s", mode, raw)
					continue
				}
				if denied, _ := sb["denied"].([]any); len(denied) == 0 && env["ok"] != true {
					t.Errorf("%s: the refusal is not reported in result.sandbox.denied: %s", mode, raw)
				}
			}
		})
	}
}

// TestSandboxToolchains: real toolchains run unchanged under the default
// sandbox (workspace-write), with the caches of the user running the
// tests: go test, npm test, python3 -m unittest, cargo test, git commit.
func TestSandboxToolchains(t *testing.T) {
	if testing.Short() {
		t.Skip("real toolchains under the sandbox are in the full loop, scripts/test.sh")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the Linux sandbox")
	}
	if sandbox.LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	for _, tc := range []struct {
		name, program string
		files         map[string]string
		command       string
		want          string
	}{
		{name: "go_test", program: "go",
			files: map[string]string{
				"go.mod":     "module example.com/m\n\ngo 1.21\n",
				"m.go":       "package m\n\nfunc Add(a, b int) int { return a + b }\n",
				"m_test.go":  "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
				".gitignore": "",
			},
			command: "go test -count=1 ./...", want: "ok"},
		{name: "npm_test", program: "npm",
			files: map[string]string{
				"package.json": `{"name":"m","version":"1.0.0","private":true,"scripts":{"test":"node test.js"}}` + "\n",
				"test.js":      "const assert = require('assert'); assert.strictEqual(1 + 2, 3); console.log('tests passed');\n",
			},
			command: "npm test", want: "tests passed"},
		{name: "python_unittest", program: "python3",
			files: map[string]string{
				"test_m.py": "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 2, 3)\n\nif __name__ == '__main__':\n    unittest.main()\n",
			},
			command: "python3 -m unittest -v", want: "OK"},
		{name: "cargo_test", program: "cargo",
			files: map[string]string{
				"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
				"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 2), 3); }\n}\n",
			},
			command: "cargo test --offline", want: "test result: ok"},
		{name: "git_commit", program: "git",
			files:   map[string]string{"README": "hello\n"},
			command: "git init -q && git add README && git -c user.name=T -c user.email=t@example.com commit -q -m first && git log --oneline",
			want:    "first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.program); err != nil {
				t.Skipf("%s is not installed", tc.program)
			}
			base, err := os.MkdirTemp("/var/tmp", "mcode-toolchain-")
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			ws := filepath.Join(base, "ws")
			for name, content := range tc.files {
				p := filepath.Join(ws, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c := exec.CommandContext(ctx, "mcode", "bash", "--timeout", "280", tc.command)
			c.Dir = ws
			// The user's own environment and caches; only mcode's data
			// folder is the test's, and no config file is read.
			c.Env = append(os.Environ(), "MCODE_HOME="+filepath.Join(base, "mcode-home"), "CI=true", "MCODE_CONFIG="+filepath.Join(base, "none.yaml"))
			os.WriteFile(filepath.Join(base, "none.yaml"), []byte("{}\n"), 0o644)
			out, _ := c.Output()
			var env map[string]any
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatalf("not an envelope: %v: %s", err, out)
			}
			result, _ := env["result"].(map[string]any)
			sb, _ := result["sandbox"].(map[string]any)
			if sb == nil || sb["mode"] != "workspace-write" || sb["fs_write"] != "enforced" {
				t.Fatalf("not run in the default sandbox: %s", out)
			}
			output, _ := env["output"].(string)
			if env["ok"] != true || !strings.Contains(output, tc.want) {
				t.Fatalf("%s failed under the sandbox: %s", tc.command, out)
			}
		})
	}
}
