package sandbox

import (
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
)

func TestStatus(t *testing.T) {
	ws := &Policy{Mode: WorkspaceWrite, Network: ParseNetwork(nil)}
	for _, c := range []struct {
		name     string
		p        *Policy
		k        Kernel
		want     [4]Guarantee // fs_write, fs_read_secrets, network, protected_paths
		approval bool
	}{
		{"here", ws, Kernel{Platform: "linux", LandlockABI: 7, Seccomp: true, Mounts: true}, [4]Guarantee{Enforced, Enforced, Enforced, Enforced}, false},
		{"no mounts", ws, Kernel{Platform: "linux", LandlockABI: 7, Seccomp: true, MountError: "EPERM"}, [4]Guarantee{Enforced, Enforced, Enforced, Partial}, false},
		{"old landlock", ws, Kernel{Platform: "linux", LandlockABI: 2, Seccomp: true, Mounts: true}, [4]Guarantee{Partial, Enforced, Enforced, Enforced}, false},
		{"no landlock", ws, Kernel{Platform: "linux"}, [4]Guarantee{Unavailable, Unavailable, Unavailable, Unavailable}, true},
		{"allowlist", &Policy{Mode: WorkspaceWrite, Network: ParseNetwork([]string{"api.github.com:443"})}, Kernel{Platform: "linux", LandlockABI: 7, Seccomp: true, Mounts: true}, [4]Guarantee{Enforced, Enforced, Partial, Enforced}, false},
		{"allowlist before ABI 4", &Policy{Mode: WorkspaceWrite, Network: ParseNetwork([]string{"443"})}, Kernel{Platform: "linux", LandlockABI: 3, Seccomp: true, Mounts: true}, [4]Guarantee{Enforced, Enforced, Unavailable, Enforced}, true},
		{"off without seccomp", &Policy{Mode: WorkspaceWrite, Network: ParseNetwork([]string{"off"})}, Kernel{Platform: "linux", LandlockABI: 4, Mounts: true}, [4]Guarantee{Partial, Enforced, Partial, Enforced}, false},
		{"read-only", &Policy{Mode: ReadOnly, Network: ParseNetwork(nil)}, Kernel{Platform: "linux", LandlockABI: 7, Seccomp: true}, [4]Guarantee{Enforced, Enforced, Enforced, Enforced}, false},
		{"danger", &Policy{Mode: DangerFullAccess}, Kernel{Platform: "linux", LandlockABI: 7}, [4]Guarantee{Off, Off, Off, Off}, false},
		{"macOS", ws, Kernel{Platform: "darwin", SandboxExec: true}, [4]Guarantee{Unverified, Unverified, Unverified, Unverified}, false},
		{"windows", ws, Kernel{Platform: "windows"}, [4]Guarantee{Unavailable, Unavailable, Unavailable, Unavailable}, true},
	} {
		s := c.p.Status(c.k)
		got := [4]Guarantee{s.FSWrite, s.FSReadSecrets, s.Network, s.ProtectedPaths}
		if got != c.want {
			t.Errorf("%s: %v, want %v (%v)", c.name, got, c.want, s.Why)
		}
		for i, name := range []string{GuaranteeFSWrite, GuaranteeFSReadSecrets, GuaranteeNetwork, GuaranteeProtectedPaths} {
			if got[i] != Enforced && s.Why[name] == "" {
				t.Errorf("%s: %s is %s without a why", c.name, name, got[i])
			}
		}
		if why := Unenforceable(c.p.Mode, c.p.Network, c.k); (why != "") != c.approval {
			t.Errorf("%s: Unenforceable = %q, want approval %v", c.name, why, c.approval)
		}
	}
	unhidden := &Policy{Mode: WorkspaceWrite, Network: ParseNetwork(nil), Unhidden: []Refusal{{Path: "/w/home/.ssh", From: "/w"}}}
	if s := unhidden.Status(Kernel{Platform: "linux", LandlockABI: 7, Seccomp: true, Mounts: true}); s.FSReadSecrets != Partial || !strings.Contains(s.Why[GuaranteeFSReadSecrets], "/w/home/.ssh") {
		t.Errorf("a secret inside a writable place: %s %q", s.FSReadSecrets, s.Why[GuaranteeFSReadSecrets])
	}
}

func TestSeatbeltProfile(t *testing.T) {
	pl := &Plan{Mode: WorkspaceWrite, Ports: []uint16{443},
		Writable: []Place{{Path: "/Users/p/ws", Kind: KindWorkspace}, {Path: "/dev/null", Kind: KindDevice, File: true}},
		Hidden:   []string{"/Users/p/.ssh", `/Users/p/we"ird`},
		Held:     []string{"/Users/p/ws/.git/hooks", "/Users/p/ws/.mcode.yaml", "/elsewhere/x"}}
	got := pl.SeatbeltProfile()
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(require-not (subpath "/Users/p/.ssh"))`,
		`(require-not (subpath "/Users/p/we\"ird"))`,
		`(require-all (subpath "/Users/p/ws")` + "\n" + `    (require-not (subpath "/Users/p/ws/.git/hooks"))` + "\n" + `    (require-not (subpath "/Users/p/ws/.mcode.yaml")))`,
		`(literal "/dev/null")`,
		`(remote tcp "*:443")`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/elsewhere/x") {
		t.Errorf("a held path outside every writable place is in the profile:\n%s", got)
	}
	if strings.Count(got, "(") != strings.Count(got, ")") {
		t.Errorf("unbalanced parentheses:\n%s", got)
	}
	if off := (&Plan{NetOff: true}).SeatbeltProfile(); !strings.Contains(off, "(allow network* (local unix) (remote unix))") || strings.Contains(off, "(allow network*)") {
		t.Errorf("network off:\n%s", off)
	}
}

func TestDenials(t *testing.T) {
	root, home := layout(t)
	p := New(Inputs{Root: root, UserHome: home, Config: config.Sandbox{Mode: "workspace-write", Network: []string{"off"}},
		Getenv: getenvOf(map[string]string{"HOME": home})})
	for _, c := range []struct {
		line string
		want string // op path-or-host, "" for none
	}{
		{"/bin/bash: line 1: /etc/mcode-x: Permission denied", "write /etc/mcode-x"},
		{"touch: cannot touch '/usr/local/y': Permission denied", "write /usr/local/y"},
		{"mkdir: cannot create directory ‘/opt/z’: Permission denied", "write /opt/z"},
		{"mv: cannot move 'file' to '/opt/renamed': Permission denied", "write /opt/renamed"},
		{"PermissionError: [Errno 13] Permission denied: '/etc/q'", "write /etc/q"},
		{"Error: EACCES: permission denied, open '/etc/q'", "write /etc/q"},
		{"/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system", "write " + root + "/.git/hooks/pre-commit"},
		{"error: could not lock config file .git/config: Permission denied", "write " + root + "/.git/config"},
		{"cat: " + home + "/.ssh/id_rsa: Permission denied", "read " + home + "/.ssh/id_rsa"},
		{"touch: cannot touch 'ok': Permission denied", ""}, // in the workspace: not the sandbox
		{"unshare: unshare failed: Operation not permitted", "unshare "},
		{"ptrace(1234): Operation not permitted", "ptrace "},
		{"curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", "connect 127.0.0.1:9"},
		{"bash: socket: Permission denied", "connect "},
		{"all good", ""},
	} {
		ds := p.Denials(c.line, root)
		got := ""
		if len(ds) > 0 {
			got = ds[0].Op + " " + ds[0].Path + ds[0].Host
			if !ds[0].Likely {
				t.Errorf("%q: a denial read from the output is not marked likely", c.line)
			}
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
	on := New(Inputs{Root: root, UserHome: home, Config: config.Defaults().Sandbox})
	if ds := on.Denials("curl: (7) Failed to connect to 127.0.0.1 port 9", root); len(ds) != 0 {
		t.Errorf("with network on a failed connect is not the sandbox's: %+v", ds)
	}
	many := strings.Repeat("touch: cannot touch '/etc/a': Permission denied\ntouch: cannot touch '/etc/b': Permission denied\n", 20)
	for i := range 20 {
		many += "touch: cannot touch '/etc/n" + string(rune('a'+i)) + "': Permission denied\n"
	}
	if ds := p.Denials(many, root); len(ds) != MaxDenials {
		t.Errorf("%d denials, want at most %d, each once", len(ds), MaxDenials)
	}
}
