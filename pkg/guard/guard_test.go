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

// TestBypassCorpus: every case really deletes the sentinel in plain bash,
// and the guard with a deny rule on rm never lets it through.
func TestBypassCorpus(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/bypass.txtar")
	if err != nil {
		t.Fatal(err)
	}
	bash := peer.Require(t, "bash", "bash")
	g := mustGuard(t, denyRM())
	for _, f := range ar.Files {
		script := strings.TrimSuffix(string(f.Data), "\n")
		expect, name, _ := strings.Cut(f.Name, "/")
		t.Run(f.Name, func(t *testing.T) {
			if first, _, _ := strings.Cut(script, "\n"); strings.HasPrefix(first, "# needs: ") {
				prog := strings.TrimPrefix(first, "# needs: ")
				pkg := prog
				if prog == "su" {
					pkg = "util-linux"
				}
				peer.Require(t, prog, pkg)
				if (prog == "sudo" || prog == "su") && os.Geteuid() != 0 {
					t.Skipf("%s asks a password when not run as root", prog)
				}
			}
			dir := t.TempDir()
			sentinel := filepath.Join(dir, "sentinel")
			if err := os.WriteFile(sentinel, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "-c", script)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(sentinel); err == nil {
				t.Fatalf("%s: plain bash left the sentinel: the case proves nothing (output %q)", name, out)
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

// FuzzJudge: with a deny rule, a command the guard cannot judge (it does
// not parse, or its names or scripts are only known at run time) is never
// allowed, and one that runs rm is denied.
func FuzzJudge(f *testing.F) {
	ar, err := txtar.ParseFile("testdata/bypass.txtar")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		f.Add(string(file.Data))
	}
	g := mustGuard(f, denyRM())
	f.Fuzz(func(t *testing.T, src string) {
		j := g.Judge(bashCall(t, "/work", src))
		a := j.Shell
		if (a.ParseError != "" || len(a.Unjudgeable) > 0) && j.Verdict == dispatch.Allow {
			t.Fatalf("%q: allowed, though %s%v", src, a.ParseError, a.Unjudgeable)
		}
		for _, c := range a.Commands {
			if !c.Dynamic && c.Name() == "rm" && j.Verdict != dispatch.Deny {
				t.Fatalf("%q runs rm (%s) but is %s", src, c.Text, j.Verdict)
			}
		}
	})
}
