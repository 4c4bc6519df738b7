//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// promptCode is how mcode approve and deny show the code a person types.
var promptCode = regexp.MustCompile(`Type ([A-Z]{4}) \(or y\)`)

// ptyRun is the script command `ptyrun ANSWER PROGRAM [ARGS...]`: it runs
// PROGRAM on a pseudo-terminal of its own (stdin, stdout and stderr, its
// controlling terminal), as a person's terminal is, and when a question
// shows up types ANSWER and Enter: "code" types the code the question
// shows, anything else is typed as it is. It prints what the terminal
// showed and exits with PROGRAM's status.
func ptyRun() int {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: ptyrun ANSWER PROGRAM [ARGS...]")
		return 2
	}
	answer, prog, args := os.Args[1], os.Args[2], os.Args[3:]
	master, slave, err := openTerminal()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", err)
		return 2
	}
	defer master.Close()
	path, err := exec.LookPath(prog)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", err)
		return 2
	}
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", err)
		return 2
	}
	slave.Close()
	var mu sync.Mutex
	var shown bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	answered := false
	var waitErr error
	deadline := time.After(60 * time.Second)
loop:
	for {
		select {
		case waitErr = <-exited:
			break loop
		case <-deadline:
			c.Process.Kill()
			waitErr = <-exited
			break loop
		case <-time.After(20 * time.Millisecond):
		}
		mu.Lock()
		text := shown.String()
		mu.Unlock()
		if !answered && strings.Contains(text, "(or y)") {
			typed := answer
			if answer == "code" {
				if m := promptCode.FindStringSubmatch(text); m != nil {
					typed = m[1]
				}
			}
			master.Write([]byte(typed + "\n"))
			answered = true
		}
	}
	select {
	case <-readDone:
	case <-time.After(2 * time.Second):
	}
	mu.Lock()
	transcript := strings.ReplaceAll(shown.String(), "\r\n", "\n")
	mu.Unlock()
	// A JSON envelope at the end (-o json, pretty on a terminal) goes to
	// stdout as one line, for the json command; the terminal's whole
	// transcript to stderr. Without one, the transcript is stdout.
	if i := strings.LastIndex("\n"+transcript, "\n{\n"); i >= 0 {
		var b bytes.Buffer
		if json.Compact(&b, []byte(transcript[i:])) == nil {
			os.Stderr.WriteString(transcript)
			os.Stdout.Write(append(b.Bytes(), '\n'))
			transcript = ""
		}
	}
	os.Stdout.WriteString(transcript)
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		return ee.ExitCode()
	}
	if waitErr != nil {
		return 2
	}
	return 0
}

// openTerminal opens a pseudo-terminal pair.
func openTerminal() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}
