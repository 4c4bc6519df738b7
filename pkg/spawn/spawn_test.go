package spawn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func names(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		out = append(out, k)
	}
	return out
}

// TestPrepareAppliesTheEnvironmentPolicy: what bash's commands lose, every
// process mcode starts loses: mcode's own authority always, and under CI
// the credentials scrub removes.
func TestPrepareAppliesTheEnvironmentPolicy(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/h", "MCODE_SERVE_TOKEN=t", "MCODE_APPROVAL=apr_x", "ANTHROPIC_API_KEY=k", "GH_TOKEN=g", "CI=true"}
	p := Settings{Root: t.TempDir(), Sandbox: config.Defaults().Sandbox}.Prepare(environ)
	got := names(p.Env)
	for _, gone := range []string{"MCODE_SERVE_TOKEN", "MCODE_APPROVAL", "ANTHROPIC_API_KEY"} {
		if slices.Contains(got, gone) {
			t.Errorf("%s reached the child: %v", gone, p.Env)
		}
		if !slices.Contains(p.Removed, gone) {
			t.Errorf("%s is not listed as removed: %v", gone, p.Removed)
		}
	}
	for _, kept := range []string{"PATH", "HOME", "GH_TOKEN"} {
		if !slices.Contains(got, kept) {
			t.Errorf("%s was removed: %v", kept, p.Env)
		}
	}
	if p.EnvMode != EnvScrub {
		t.Errorf("under CI the mode is %s", p.EnvMode)
	}
	off := Settings{Root: t.TempDir(), Sandbox: config.Defaults().Sandbox}.Prepare([]string{"ANTHROPIC_API_KEY=k", "MCODE_SERVE_TOKEN=t"})
	if names(off.Env)[0] != "ANTHROPIC_API_KEY" || len(off.Env) != 1 {
		t.Errorf("off: only mcode's own authority goes: %v", off.Env)
	}
}

// TestStartConfinesTheChild: a process started through Prepared.Start is
// in the sandbox; one a person approved to run without is not.
func TestStartConfinesTheChild(t *testing.T) {
	if sandbox.LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	out, err := os.MkdirTemp("/var/tmp", "mcode-spawn-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(out)
	root := t.TempDir()
	p := Settings{Root: root, Sandbox: config.Defaults().Sandbox}.Prepare(os.Environ())
	if err := p.Allowed(context.Background()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", "echo x > "+filepath.Join(out, "sentinel")+"; echo y > "+filepath.Join(root, "inside"))
	cmd.Env = p.Env
	_, release, err := p.Start(cmd, (*exec.Cmd).Start)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	release()
	if _, err := os.Stat(filepath.Join(out, "sentinel")); err == nil {
		t.Error("the child wrote outside the writable set")
	}
	if _, err := os.Stat(filepath.Join(root, "inside")); err != nil {
		t.Errorf("the child could not write in the workspace: %v", err)
	}
	// Unenforceable: refused unless a person approved the call.
	p.Unenforceable = "no Landlock here"
	if err := p.Allowed(context.Background()); err == nil {
		t.Error("an unenforceable sandbox was allowed without approval")
	} else if te, ok := err.(*tool.Error); !ok || te.Code != tool.CodeApprovalRequired {
		t.Errorf("refusal: %v", err)
	}
	if err := p.Allowed(tool.WithApproved(context.Background())); err != nil {
		t.Errorf("an approved call was refused: %v", err)
	}
}
