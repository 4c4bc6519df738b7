package tiers

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func env(t *testing.T, session string) *tool.Env {
	home := t.TempDir()
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
