package guard

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// denyRM is a config whose only rule denies rm.
func denyRM() config.Guard {
	g := config.Defaults().Guard
	g.Rules = []config.GuardRule{{Tool: "bash", ArgPattern: `^rm(\s|$)`, Action: "deny"}}
	return g
}

// denyRMCurlTouch denies rm, curl and touch, as issue 29's attacks did.
func denyRMCurlTouch() config.Guard {
	g := config.Defaults().Guard
	g.Rules = []config.GuardRule{{Tool: "bash", ArgPattern: `^(rm|curl|touch)(\s|$)`, Action: "deny"}}
	return g
}

// denied are the programs denyRMCurlTouch denies.
var denied = map[string]bool{"rm": true, "curl": true, "touch": true}

// casePeers names the Debian package of the programs corpus cases need
// (others are packages of their own name); asRoot are those that ask a
// password unless run as root.
var (
	casePeers = map[string]string{"su": "util-linux", "runuser": "util-linux", "setpriv": "util-linux", "prlimit": "util-linux",
		"setarch": "util-linux", "linux64": "util-linux", "flock": "util-linux", "sg": "login", "newgrp": "login", "script": "bsdutils"}
	asRoot = map[string]bool{"sudo": true, "su": true, "runuser": true, "sg": true, "newgrp": true}
)

func bashCall(t testing.TB, root, command string) *dispatch.Call {
	args, _ := json.Marshal(map[string]string{"command": command})
	cfg := config.Defaults()
	return &dispatch.Call{Request: dispatch.Request{Tool: "bash", Args: args},
		Env: &tool.Env{Root: root, UserHome: filepath.Join(root, "home"), DataDir: filepath.Join(root, "data"), Config: &cfg}}
}

func mustGuard(t testing.TB, cfg config.Guard) *Guard {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBypassCorpus: every case really deletes the sentinel or creates S
// in plain bash, and the guard with deny rules on rm, curl and touch
// never lets it through.
func TestBypassCorpus(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/bypass.txtar")
	if err != nil {
		t.Fatal(err)
	}
	bash := peer.Require(t, "bash", "bash")
	g := mustGuard(t, denyRMCurlTouch())
	for _, f := range ar.Files {
		script := strings.TrimSuffix(string(f.Data), "\n")
		expect, name, _ := strings.Cut(f.Name, "/")
		t.Run(f.Name, func(t *testing.T) {
			if first, _, _ := strings.Cut(script, "\n"); strings.HasPrefix(first, "# needs: ") {
				prog := strings.TrimPrefix(first, "# needs: ")
				pkg := prog
				if p, ok := casePeers[prog]; ok {
					pkg = p
				}
				peer.Require(t, prog, pkg)
				if asRoot[prog] && os.Geteuid() != 0 {
					t.Skipf("%s asks a password when not run as root", prog)
				}
			}
			dir := t.TempDir()
			// The proof that the case does harm under plain bash (a bash
			// per case, ~200 of them) runs in the full loop
			// (scripts/test.sh); the guard judges every case in both.
			if !testing.Short() {
				sentinel, created := filepath.Join(dir, "sentinel"), filepath.Join(dir, "S")
				if err := os.WriteFile(sentinel, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, bash, "-c", script)
				cmd.Dir = dir
				out, _ := cmd.CombinedOutput()
				_, kept := os.Stat(sentinel)
				_, notCreated := os.Stat(created)
				if kept == nil && notCreated != nil {
					t.Fatalf("%s: plain bash left the sentinel and created no S: the case proves nothing (output %q)", name, out)
				}
			}
			j := g.Judge(bashCall(t, dir, script))
			switch expect {
			case "deny":
				if j.Verdict != dispatch.Deny {
					t.Errorf("%q: decision %s (%s: %s), want deny\n%s", script, j.Verdict, j.Source, j.Reason, show(j))
				}
			case "hold":
				if j.Verdict == dispatch.Allow {
					t.Errorf("%q: allowed (%s), want deny or require_approval\n%s", script, j.Reason, show(j))
				}
			default:
				t.Fatalf("case %s: the folder must be deny/ or hold/", f.Name)
			}
		})
	}
}

func show(j *Judgement) string {
	b, _ := json.MarshalIndent(j, "", "  ")
	return string(b)
}

// FuzzJudge: with deny rules, a command the guard cannot judge (it does
// not parse, or its names or scripts are only known at run time) is never
// allowed, and one that runs rm, curl or touch is denied.
func FuzzJudge(f *testing.F) {
	ar, err := txtar.ParseFile("testdata/bypass.txtar")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		f.Add(string(file.Data))
	}
	g := mustGuard(f, denyRMCurlTouch())
	f.Fuzz(func(t *testing.T, src string) {
		j := g.Judge(bashCall(t, "/work", src))
		a := j.Shell
		if (a.ParseError != "" || len(a.Unjudgeable) > 0) && j.Verdict == dispatch.Allow {
			t.Fatalf("%q: allowed, though %s%v", src, a.ParseError, a.Unjudgeable)
		}
		for _, c := range a.Commands {
			if !c.Dynamic && denied[c.Name()] && j.Verdict != dispatch.Deny {
				t.Fatalf("%q runs %s (%s) but is %s", src, c.Name(), c.Text, j.Verdict)
			}
		}
	})
}

// TestEverydayCommandsAreAllowed: deny rules on rm, curl and touch raise
// nothing else; the parser's checks hold no everyday command.
func TestEverydayCommandsAreAllowed(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/everyday.txtar")
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, denyRMCurlTouch())
	for _, f := range ar.Files {
		script := strings.TrimSuffix(string(f.Data), "\n")
		if j := g.Judge(bashCall(t, t.TempDir(), script)); j.Verdict != dispatch.Allow {
			t.Errorf("%s: %q is %s (%s: %s)", f.Name, script, j.Verdict, j.Source, j.Reason)
		}
	}
}
