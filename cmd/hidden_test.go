package cmd

import (
	"bytes"
	"errors"
	"os"
	osexec "os/exec"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/exec"
)

// TestHiddenCommandsCheckTheirArguments: the re-executed processes are
// started by cmd/, which answers a wrong command line with its usage and
// status 2, and a server that cannot start with 127.
func TestHiddenCommandsCheckTheirArguments(t *testing.T) {
	for _, c := range []struct {
		args       []string
		status     int
		wantStderr string
	}{
		{[]string{exec.SupervisorArg, "a", "b"}, 2, "usage: mcode " + exec.SupervisorArg},
		{[]string{connector.WardenArg}, 2, "usage: mcode " + connector.WardenArg},
		{[]string{connector.WardenArg, "/no/such/server"}, 127, "cannot start the MCP server /no/such/server"},
	} {
		cmd := osexec.Command(os.Args[0], c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *osexec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.status || !strings.Contains(stderr.String(), c.wantStderr) {
			t.Errorf("mcode %v: %v, stderr %q; want status %d and %q", c.args, err, stderr.String(), c.status, c.wantStderr)
		}
	}
}
