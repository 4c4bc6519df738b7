package osshell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakePowerShell writes an executable named powershell that answers the
// probe as script says and counts its runs in a file beside it.
func fakePowerShell(t *testing.T, answer string) (Shell, func() int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake PowerShell is a shell script")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	exe := filepath.Join(dir, "powershell")
	script := "#!/bin/sh\necho run >> '" + count + "'\n" + answer + "\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return Shell{Path: exe, Kind: PowerShell}, func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
}

func runProcess(ctx context.Context, argv []string) (string, error) {
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	return string(out), err
}

func TestProberRunsOnceAndRemembers(t *testing.T) {
	sh, runs := fakePowerShell(t, `test "$4" = '$ExecutionContext.SessionState.LanguageMode' && printf 'ConstrainedLanguage\r\n'`)
	cache := filepath.Join(t.TempDir(), "state", "shell-modes.json")
	p := &Prober{Run: runProcess, CacheFile: cache}
	for i := 0; i < 3; i++ {
		if got := p.Mode(context.Background(), sh); got != ConstrainedLanguage {
			t.Fatalf("call %d: Mode = %q, want ConstrainedLanguage", i, got)
		}
	}
	if n := runs(); n != 1 {
		t.Fatalf("the probe ran %d times, want once", n)
	}
	// Another process reads what this one found.
	if got := (&Prober{Run: runProcess, CacheFile: cache}).Mode(context.Background(), sh); got != ConstrainedLanguage || runs() != 1 {
		t.Fatalf("a new prober: Mode = %q after %d runs, want the cached ConstrainedLanguage after 1", got, runs())
	}
	// A changed executable is probed again.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(sh.Path, later, later); err != nil {
		t.Fatal(err)
	}
	if got := (&Prober{Run: runProcess, CacheFile: cache}).Mode(context.Background(), sh); got != ConstrainedLanguage || runs() != 2 {
		t.Fatalf("after the file changed: Mode = %q after %d runs, want a second probe", got, runs())
	}
	// And an old answer expires.
	aged := &Prober{Run: runProcess, CacheFile: cache, Now: func() time.Time { return time.Now().Add(ProbeTTL + time.Minute) }}
	if aged.Mode(context.Background(), sh); runs() != 3 {
		t.Fatalf("after ProbeTTL: %d runs, want a third probe", runs())
	}
}

func TestProberFailureIsUnknownAndNotRemembered(t *testing.T) {
	sh, runs := fakePowerShell(t, `echo 'Program blocked by group policy' >&2; exit 1`)
	p := &Prober{Run: runProcess}
	for i := 0; i < 2; i++ {
		if got := p.Mode(context.Background(), sh); got != "" {
			t.Fatalf("Mode = %q, want unknown", got)
		}
	}
	if runs() != 2 {
		t.Fatalf("a failed probe was remembered: %d runs, want 2", runs())
	}
	if inv := Invoke(sh, p.Mode(context.Background(), sh), "dir", "ab12"); inv.Stdin != "" || len(inv.Env) != 1 {
		t.Fatalf("an unknown mode must get the launcher: %+v", inv)
	}
}

func TestProberTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for ProbeTimeout")
	}
	sh, _ := fakePowerShell(t, `exec sleep 30`)
	start := time.Now()
	if got := (&Prober{Run: runProcess}).Mode(context.Background(), sh); got != "" {
		t.Fatalf("Mode = %q, want unknown", got)
	}
	if took := time.Since(start); took > ProbeTimeout+10*time.Second {
		t.Fatalf("the probe took %s, past its %s limit", took, ProbeTimeout)
	}
}

func TestProberSkipsOtherShells(t *testing.T) {
	p := &Prober{Run: func(context.Context, []string) (string, error) {
		t.Fatal("a shell that is not PowerShell was probed")
		return "", nil
	}}
	if got := p.Mode(context.Background(), Shell{"/bin/bash", Bash}); got != FullLanguage {
		t.Fatalf("Mode = %q", got)
	}
}
