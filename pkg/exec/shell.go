package exec

import (
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/osshell"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// shellModesFile keeps, in MCODE_HOME, each PowerShell's language mode.
const shellModesFile = "shell-modes.json"

// selected remembers each bash.shell choice's shell for the process.
var selected struct {
	sync.Mutex
	m map[string]osshell.Shell
}

// selectShell picks the shell of choice (bash.shell) on this machine.
func selectShell(choice string) (osshell.Shell, error) {
	selected.Lock()
	defer selected.Unlock()
	if sh, ok := selected.m[choice]; ok {
		return sh, nil
	}
	sh, err := osshell.Select(osshell.Host(), choice)
	if err != nil {
		return osshell.Shell{}, err
	}
	if selected.m == nil {
		selected.m = map[string]osshell.Shell{}
	}
	selected.m[choice] = sh
	return sh, nil
}

// probers are the language-mode probers of each MCODE_HOME.
var probers struct {
	sync.Mutex
	m map[string]*osshell.Prober
}

func prober(dataDir string) *osshell.Prober {
	probers.Lock()
	defer probers.Unlock()
	if p, ok := probers.m[dataDir]; ok {
		return p
	}
	p := &osshell.Prober{Run: runProbe}
	if dataDir != "" {
		p.CacheFile = filepath.Join(dataDir, shellModesFile)
	}
	if probers.m == nil {
		probers.m = map[string]*osshell.Prober{}
	}
	probers.m[dataDir] = p
	return p
}

// runProbe runs the language-mode probe with stdin on the null device.
func runProbe(ctx context.Context, argv []string) (string, error) {
	out, err := osexec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	return string(out), err
}

// invocation is the shell that runs command and how it gets the command.
func invocation(ctx context.Context, env *tool.Env, choice, command string) (osshell.Shell, osshell.Invocation, error) {
	sh, err := selectShell(choice)
	if err != nil {
		return sh, osshell.Invocation{}, &tool.Error{Code: tool.CodeToolError,
			Message: "command not run: " + err.Error(),
			Hint:    fmt.Sprintf("install one, or set bash.shell to one of %s, or to an absolute path to a shell", strings.Join(config.ShellChoices, ", "))}
	}
	if !sh.Kind.IsPowerShell() {
		return sh, osshell.Invoke(sh, osshell.FullLanguage, command, ""), nil
	}
	mode := prober(env.DataDir).Mode(ctx, sh)
	return sh, osshell.Invoke(sh, mode, command, fsutil.RandomHex(8)), nil
}

// argv is the shell's argument list.
func (s jobSpec) argv() []string {
	if len(s.Args) > 0 {
		return s.Args
	}
	return []string{s.Shell, "-c", s.Command}
}

// stdin is the shell's standard input: the null device (nil), or a pipe
// that feed fills with Stdin and closes once the shell started (or closes
// unused when it did not).
func (s jobSpec) stdin() (r *os.File, feed func(started bool), err error) {
	if s.Stdin == "" {
		return nil, func(bool) {}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return r, func(started bool) {
		r.Close()
		if !started {
			w.Close()
			return
		}
		go func() {
			defer w.Close()
			_, _ = io.WriteString(w, s.Stdin) // a shell that exits early just stops reading
		}()
	}, nil
}
