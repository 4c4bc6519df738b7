//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
