package connector

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// WardenArg, as mcode's first argument, makes the process the warden of
// one stdio server (Ward): mcode starts every stdio server through it
// when it knows its own executable (Connector.WardenExe). cmd/ starts
// the process (its hidden commands); Ward is its work.
const WardenArg = "__mcp-server-warden"

// Ward runs argv, a stdio server, as its child and ends the server's
// whole process tree when the server exits, when it is told to (SIGTERM,
// SIGINT, SIGHUP), and when mcode dies, SIGKILL included: mcode starts
// the warden with a parent-death signal, which a signal handler can
// catch, where the server's own tree could not be reached. The server
// inherits the warden's stdin, stdout and stderr as they are. It returns
// the server's exit status (128+N for a signal), or an error when the
// server cannot start.
func Ward(argv []string) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("no command")
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Orphans of the server come back here, so the tree stays in reach.
	_ = proctree.BecomeSubreaper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := proctree.StartGroup(cmd); err != nil {
		return 0, fmt.Errorf("cannot start the MCP server %s: %w", argv[0], err)
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		proctree.StopReapedGroup(pid, termGrace)
		sweepBelow(os.Getpid())
		return exitStatus(err), nil
	case sig := <-sigs:
		proctree.StopGroup(pid, termGrace)
		<-done
		sweepBelow(os.Getpid())
		return 128 + int(sig.(syscall.Signal)), nil
	}
}

// sweepBelow ends every process below the warden: a process of the
// server that left its group (setsid, a new session) is still in the
// warden's tree, since orphans come back to it (the subreaper).
func sweepBelow(self int) {
	proctree.Stop(func() []proctree.Proc {
		var below []proctree.Proc
		for _, p := range proctree.Descendants(self) {
			if p.PID != self {
				below = append(below, p)
			}
		}
		return below
	}, termGrace)
}

func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
