//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master for the test, the slave for
// the child as its controlling terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// Ctrl-C at the rm shim's question ends it as it ends rm: exit 130,
// nothing removed. (It used to wait for ever: mcode caught the signal
// and nothing stopped the read of the terminal.)
func TestShimPromptInterruptedByCtrlC(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rm := filepath.Join(dir, "rm")
	if err := os.Symlink(exe, rm); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	master, slave := openPTY(t)
	c := exec.Command(rm, "-i", victim)
	c.Env = append(os.Environ(), "HOME="+dir, "MCODE_HOME="+filepath.Join(dir, "mcode-home"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()

	// The question is asked after mcode listens for signals.
	var seen bytes.Buffer
	buf := make([]byte, 1024)
	for !bytes.Contains(seen.Bytes(), []byte("remove")) {
		_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := master.Read(buf)
		if err != nil {
			c.Process.Kill()
			t.Fatalf("no question (%v): %q", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	if _, err := master.Write([]byte{3}); err != nil { // ^C
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if c.ProcessState.ExitCode() != 130 {
			t.Errorf("exit %v, want status 130", err)
		}
	case <-time.After(30 * time.Second):
		c.Process.Kill()
		<-done
		t.Fatal("still waiting for an answer after ^C")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the file is gone: %v", err)
	}
}

// runOnTTY runs mcode with stdout and stderr on a pseudo-terminal and
// returns what the terminal showed.
func runOnTTY(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	master, slave := openPTY(t)
	c := mcodeCmd(t, args...)
	c.Env = append(c.Env, env...)
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var seen bytes.Buffer
	buf := make([]byte, 4096)
	for {
		_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := master.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			break // EIO once the child closed the terminal
		}
	}
	_ = c.Wait()
	return seen.String(), c.ProcessState.ExitCode()
}

// A person at a terminal reads text, as gh shows it; -o json gives the
// envelope; errors name the tool and the code, coloured unless NO_COLOR.
func TestTerminalGetsTheReadableForm(t *testing.T) {
	out, code := runOnTTY(t, []string{"TERM=xterm", "NO_COLOR="}, "bash", "printf 'line one\\nline two\\n'")
	if code != 0 || !strings.Contains(out, "line one\r\nline two") || strings.Contains(out, `"ok"`) {
		t.Errorf("readable form: exit %d, %q", code, out)
	}
	out, _ = runOnTTY(t, []string{"TERM=xterm"}, "-o", "json", "bash", "echo hi")
	if !strings.Contains(out, `"ok": true`) || !strings.Contains(out, `"output": "hi\n"`) {
		t.Errorf("-o json on a terminal: %q", out)
	}
	out, code = runOnTTY(t, []string{"TERM=xterm", "NO_COLOR="}, "read", "no-such-file.txt")
	if code != 1 || !strings.Contains(out, "mcode read: \x1b[31mnot_found\x1b[0m:") || !strings.Contains(out, "hint:") {
		t.Errorf("error on a terminal: exit %d, %q", code, out)
	}
	out, _ = runOnTTY(t, []string{"TERM=xterm", "NO_COLOR=1"}, "read", "no-such-file.txt")
	if strings.Contains(out, "\x1b[") || !strings.Contains(out, "mcode read: not_found:") {
		t.Errorf("NO_COLOR: %q", out)
	}
	out, _ = runOnTTY(t, []string{"TERM=xterm"}, "--help")
	if strings.Contains(out, `"tool": "help"`) || strings.Contains(out, `"tool":"help"`) || !strings.Contains(out, "Usage:") {
		t.Errorf("help on a terminal: %q", out)
	}
}

// On a terminal bash shows the command's output as it comes, once.
func TestTerminalShowsBashOutputAsItComes(t *testing.T) {
	master, slave := openPTY(t)
	c := mcodeCmd(t, "bash", "echo first; sleep 2; echo second")
	c.Env = append(c.Env, "TERM=xterm")
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var seen bytes.Buffer
	var firstAt, secondAt time.Duration
	buf := make([]byte, 4096)
	for {
		_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := master.Read(buf)
		seen.Write(buf[:n])
		if firstAt == 0 && bytes.Contains(seen.Bytes(), []byte("first")) {
			firstAt = time.Since(start)
		}
		if secondAt == 0 && bytes.Contains(seen.Bytes(), []byte("second")) {
			secondAt = time.Since(start)
		}
		if err != nil {
			break
		}
	}
	_ = c.Wait()
	if firstAt == 0 || secondAt == 0 || secondAt-firstAt < time.Second {
		t.Errorf("first at %v, second at %v: the output was not shown as it came: %q", firstAt, secondAt, seen.String())
	}
	if n := bytes.Count(seen.Bytes(), []byte("first")); n != 1 {
		t.Errorf("the output was shown %d times: %q", n, seen.String())
	}
}

// On a terminal the guard asks the person on /dev/tty: y runs the call
// once, n refuses it (77), and Ctrl-C is no. Nothing hangs.
func TestApprovalAskedOnTheTerminal(t *testing.T) {
	for _, tc := range []struct {
		answer []byte
		code   int
		kept   bool
	}{
		{[]byte("y\n"), 0, false},
		{[]byte("n\n"), 77, true},
		{[]byte("\n"), 77, true},
		{[]byte{3}, -1, true}, // ^C: 77 or 130, never a run
	} {
		master, slave := openPTY(t)
		c := mcodeCmd(t, "bash", `find . -name "*.o" -delete`)
		c.Env = append(c.Env, "CI=", "GITHUB_ACTIONS=")
		obj := filepath.Join(c.Dir, "a.o")
		if err := os.WriteFile(obj, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		var seen bytes.Buffer
		buf := make([]byte, 4096)
		for !bytes.Contains(seen.Bytes(), []byte("[y/N]")) {
			_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
			n, err := master.Read(buf)
			seen.Write(buf[:n])
			if err != nil {
				c.Process.Kill()
				t.Fatalf("no question (%v): %q", err, seen.String())
			}
		}
		if !bytes.Contains(seen.Bytes(), []byte("built-in: find_delete")) {
			t.Errorf("the question does not name the rule: %q", seen.String())
		}
		if _, err := master.Write(tc.answer); err != nil {
			t.Fatal(err)
		}
		go func() { // drain what mcode prints, so that it never blocks on the terminal
			for {
				_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
				if _, err := master.Read(buf); err != nil {
					return
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			c.Process.Kill()
			<-done
			t.Fatalf("answer %q: still waiting", tc.answer)
		}
		code := c.ProcessState.ExitCode()
		if tc.code >= 0 && code != tc.code || tc.code < 0 && code != 77 && code != 130 {
			t.Errorf("answer %q: exit %d, want %d", tc.answer, code, tc.code)
		}
		if _, err := os.Stat(obj); (err == nil) != tc.kept {
			t.Errorf("answer %q: file kept %v, want %v", tc.answer, err == nil, tc.kept)
		}
	}
}
