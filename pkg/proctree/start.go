package proctree

import (
	"os"
	"strings"
	"syscall"
)

// A Child is a process started by Start. It is reaped when it exits.
type Child struct {
	PID  int
	done chan struct{}
	code int
	sig  string
}

// Done is closed once the child has exited and been reaped.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exit is how the child ended, as ExitOf says it; call it after Done.
func (c *Child) Exit() (code int, sig string) { return c.code, c.sig }

// Spec is a program to start: files are its descriptors 0, 1, 2 and on
// (nil: /dev/null).
type Spec struct {
	Path  string
	Args  []string
	Env   []string
	Dir   string
	Files []*os.File
	Sys   *syscall.SysProcAttr
}

// dedupEnv keeps the last of the entries with the same name, in their
// order, as os/exec does.
func dedupEnv(env []string) []string {
	out := make([]string, 0, len(env))
	seen := make(map[string]bool, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		name, _, _ := strings.Cut(env[i], "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, env[i])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// files are the descriptors of s, /dev/null for each nil one; close
// closes what it opened.
func (s Spec) files() (fds []*os.File, close func(), err error) {
	var opened []*os.File
	close = func() {
		for _, f := range opened {
			f.Close()
		}
	}
	fds = make([]*os.File, len(s.Files))
	for i, f := range s.Files {
		if f == nil {
			flag := os.O_WRONLY
			if i == 0 {
				flag = os.O_RDONLY
			}
			if f, err = os.OpenFile(os.DevNull, flag, 0); err != nil {
				close()
				return nil, nil, err
			}
			opened = append(opened, f)
		}
		fds[i] = f
	}
	return fds, close, nil
}
