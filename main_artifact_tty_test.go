//go:build linux

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A big extraction draws a progress bar when stderr is a terminal, and
// only there: stdout keeps its one JSON envelope.
func TestArtifactProgressBarOnlyOnATerminal(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mcode := filepath.Join(dir, "mcode")
	if err := os.Symlink(exe, mcode); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	body := make([]byte, 12<<20) // random: the archive stays past the bar's threshold
	rand.Read(body)
	tw.WriteHeader(&tar.Header{Name: "big.bin", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	tw.Write(body)
	tw.Close()
	zw.Close()
	archive := filepath.Join(dir, "big.tgz")
	if err := os.WriteFile(archive, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(dest string, stderr *os.File, tty bool) []byte {
		c := exec.Command(mcode, "artifact", "extract", archive, "--dest", filepath.Join(dir, dest))
		c.Env = append(os.Environ(), "HOME="+dir, "MCODE_HOME="+filepath.Join(dir, "mcode-home"), "TERM=xterm")
		var stdout bytes.Buffer
		c.Stdout, c.Stderr = &stdout, stderr
		if tty {
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
		}
		if err := c.Run(); err != nil {
			t.Fatalf("extract: %v\n%s", err, stdout.String())
		}
		var env struct{ OK bool }
		if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || !env.OK {
			t.Fatalf("stdout is not one ok envelope: %v\n%s", err, stdout.String())
		}
		return stdout.Bytes()
	}

	master, slave := openPTY(t)
	// The terminal is read while mcode runs: a full one would block it.
	read := make(chan string)
	go func() {
		var seen bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			seen.Write(buf[:n])
			if err != nil {
				read <- seen.String()
				return
			}
		}
	}()
	run("out-tty", slave, true)
	slave.Close() // the master's reads end (EIO) once no one holds the slave
	seen := <-read
	if !strings.Contains(seen, "extracting big.tgz") {
		t.Fatalf("no progress bar on the terminal: %q", seen)
	}

	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	run("out-pipe", pipeW, false)
	pipeW.Close()
	var onPipe bytes.Buffer
	onPipe.ReadFrom(pipeR)
	if onPipe.Len() != 0 {
		t.Fatalf("stderr on a pipe got %q", onPipe.String())
	}
}
