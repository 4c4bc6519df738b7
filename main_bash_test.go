package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/proctree"
)

// These tests run the real mcode CLI (the test binary under the name
// mcode, on PATH through testscript.Main) as a separate process, so that
// they can signal it and measure it.

func mcodeCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process trees are tracked on Linux")
	}
	c := exec.Command("mcode", args...)
	base := t.TempDir()
	work, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	for _, d := range []string{work, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The home folder beside the workspace, as a real one is, and the
	// person's config folder in it (trustTestFiles).
	c.Env = append(os.Environ(), "MCODE_HOME="+filepath.Join(work, "mcode-home"), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CI=true",
		testUserConfigDirVar+"="+filepath.Join(home, ".config", "mcode"), testSystemConfigVar+"=")
	c.Dir = work
	t.Cleanup(func() { killTasksOf(filepath.Join(work, "mcode-home")) })
	return c
}

// personConfig writes the person's own config file for c (made by
// mcodeCmd): trusted, as a user's ~/.config/mcode/config.yaml is.
func personConfig(t *testing.T, c *exec.Cmd, yaml string) {
	t.Helper()
	for _, kv := range c.Env {
		if dir, ok := strings.CutPrefix(kv, testUserConfigDirVar+"="); ok {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("the command has no person's config folder")
}

// killTasksOf kills whatever a test or script left running under the data
// directory home, even when it failed half-way: task supervisors (by their
// task folder argument) and every process that carries the job marker
// (MCODE_BASH_JOB) of one of its tasks.
func killTasksOf(home string) {
	tasks := filepath.Join(home, "tasks")
	entries, _ := os.ReadDir(tasks)
	if len(entries) == 0 {
		return
	}
	procs, _ := os.ReadDir("/proc")
	for range 2 { // a process may fork while the first pass looks
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
			environ, _ := os.ReadFile("/proc/" + p.Name() + "/environ")
			for _, e := range entries {
				if bytes.Contains(cmdline, []byte("\x00"+filepath.Join(tasks, e.Name())+"\x00")) ||
					bytes.Contains(append([]byte{0}, environ...), []byte("\x00MCODE_BASH_JOB="+e.Name()+"\x00")) {
					proctree.ForceKill(pid)
				}
			}
		}
		procs, _ = os.ReadDir("/proc")
	}
}

// running lists the live processes whose command line has arg.
func running(arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, a := range bytes.Split(cmdline, []byte{0}) {
			if string(a) == arg {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func TestBashInterruptedBySignal(t *testing.T) {
	for i, mode := range []string{"--auto-background=true", "--auto-background=false"} {
		for j, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			arg := fmt.Sprintf("%d.%d%d", 960+os.Getpid()%30, i, j)
			marker := filepath.Join(t.TempDir(), "trapped")
			c := mcodeCmd(t, "bash", mode, fmt.Sprintf("trap 'echo trapped > %s; exit 9' TERM; sleep %s & wait", marker, arg))
			var out bytes.Buffer
			c.Stdout = &out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for _, pid := range running(arg) {
					proctree.ForceKill(pid)
				}
			})
			for deadline := time.Now().Add(20 * time.Second); len(running(arg)) == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: the command never started", mode)
				}
			}
			c.Process.Signal(sig)
			err := c.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("%s %v: exit %v, want 130\n%s", mode, sig, err, out.String())
			}
			var env struct {
				Error  struct{ Code string }
				Result struct{ Status string }
			}
			if json.Unmarshal(out.Bytes(), &env) != nil || env.Error.Code != "interrupted" || env.Result.Status != "stopped" {
				t.Errorf("%s %v: %s", mode, sig, out.String())
			}
			if data, _ := os.ReadFile(marker); string(data) != "trapped\n" {
				t.Errorf("%s %v: the TERM trap did not run", mode, sig)
			}
			for deadline := time.Now().Add(2 * time.Second); len(running(arg)) > 0 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			if left := running(arg); len(left) > 0 {
				t.Errorf("%s %v: still running: %v", mode, sig, left)
			}
		}
	}
}

// TestBashMemoryIsBounded: a gigabyte of output costs a fixed amount of
// memory (head, ring and read buffer; the spool goes to disk).
func TestBashMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GiB through a pipe")
	}
	// Measured by GNU time, not by this process's wait4: a child's peak RSS
	// starts at the size of the (large, long-lived) test process that
	// spawned it, which had hidden mcode's own figure.
	gnuTime := peer.Require(t, "/usr/bin/time", "time")
	limit := int64(32 << 10) // KiB, docs/performance.md P11
	if raceEnabled {
		limit = 160 << 10 // the race detector's shadow memory
	}
	for _, mode := range []string{"--auto-background=true", "--auto-background=false"} {
		c := mcodeCmd(t, "bash", mode, "--timeout", "300", "yes | head -c 1G")
		// A loaded machine (and -race) may take longer than the default
		// 15 s before a managed call moves to the background: keep the
		// managed path, with the hand-over far away.
		c.Env = append(c.Env, "MCODE_BASH_AUTOBACKGROUNDAFTER=290s")
		rssFile := filepath.Join(c.Dir, "maxrss")
		c.Args = append([]string{gnuTime, "-f", "%M", "-o", rssFile, c.Path}, c.Args[1:]...)
		c.Path = gnuTime
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(string(out), `"bytes":1073741824`) {
			t.Errorf("not all output was counted: %.300s", out)
		}
		data, err := os.ReadFile(rssFile)
		if err != nil {
			t.Fatal(err)
		}
		rss, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			t.Fatalf("GNU time wrote %q", data)
		}
		t.Logf("%s: peak RSS %d KiB", mode, rss)
		if rss > limit {
			t.Errorf("%s: peak RSS %d KiB, over %d KiB", mode, rss, limit)
		}
	}
}
