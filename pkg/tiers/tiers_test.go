package tiers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func env(t *testing.T, session string) *tool.Env {
	return envFor(t.TempDir(), session)
}

func envFor(home, session string) *tool.Env {
	return &tool.Env{Root: "/work", DataDir: home, Getenv: func(k string) string {
		if k == SessionVar {
			return session
		}
		return ""
	}}
}

func TestEnablePerSessionAndConcurrent(t *testing.T) {
	e := env(t, "s1")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := Enable(e, fmt.Sprintf("srv__Tool%d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := Enabled(e)
	if len(got) != 20 || !slices.IsSorted(got) || !IsEnabled(e, "SRV__TOOL7") {
		t.Fatalf("enabled = %v", got)
	}
	if already, err := Enable(e, "srv__tool3"); err != nil || !already {
		t.Fatalf("second enable: %v %v", already, err)
	}
	other := *e
	other.Getenv = func(string) string { return "s2/../odd id" }
	if IsEnabled(&other, "srv__tool3") {
		t.Fatal("another session sees the first one's tools")
	}
	noSession := *e
	noSession.Getenv = func(string) string { return "" }
	if Session(&noSession) != "root:/work" {
		t.Fatalf("session without MCODE_SESSION = %q", Session(&noSession))
	}
}

// TestListedAndPermit: the extension-tier rule — a core tool is always
// listed and callable; an extension tool is a catalogue line and refused
// (denied, naming enable_tool) until the session enables it.
func TestListedAndPermit(t *testing.T) {
	home := t.TempDir()
	env := envFor(home, "s1")
	run := func(ctx context.Context, env *tool.Env, p struct{}) (*tool.Response, error) {
		return &tool.Response{}, nil
	}
	core := tool.New(tool.Spec{Name: "core_tool", Tier: tool.Core, Description: "c", Schema: `{"type":"object"}`}, run)
	ext := tool.New(tool.Spec{Name: "srv__ext", Tier: tool.Extension, Description: "e", Schema: `{"type":"object"}`}, run)
	if !Listed(env, core) || Permit(env, core) != nil {
		t.Error("a core tool must be listed and callable")
	}
	err := Permit(env, ext)
	if Listed(env, ext) || tool.AsError(err) == nil || tool.AsError(err).Code != tool.CodeDenied || !strings.Contains(err.Error(), "enable_tool") {
		t.Errorf("an extension tool not enabled: listed %v, permit %v", Listed(env, ext), err)
	}
	if _, err := Enable(env, "srv__ext"); err != nil {
		t.Fatal(err)
	}
	if !Listed(env, ext) || Permit(env, ext) != nil {
		t.Error("an enabled extension tool must be listed and callable")
	}
	if other := envFor(home, "s2"); Listed(other, ext) {
		t.Error("enabling is per session")
	}
}
