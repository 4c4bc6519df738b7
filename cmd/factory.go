package cmd

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/osdirs"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Factory carries what commands depend on, so tests can swap any of it.
type Factory struct {
	IO     *iostreams.IOStreams
	Now    func() time.Time
	Getwd  func() (string, error)
	Getenv func(string) string
	// EnvNames lists the environment's variable names (for the config
	// keys under a map); nil means the process's own.
	EnvNames func() []string
	// Executable is the path of the running mcode binary.
	Executable func() (string, error)
	// Tools builds the registry of built-in tools.
	Tools func() []*tool.Tool

	// Global holds the root's persistent flags once parsed.
	Global GlobalOptions

	// stopDeadline releases the --timeout deadline (see applyDeadline).
	stopDeadline context.CancelFunc

	// Trusted locates the person's own files.
	Trusted TrustedFiles

	configOnce sync.Once
	// callerPlaces is the default sandbox's policy, which says what a
	// caller can write (callerWritable); built on first use.
	callerPlacesOnce sync.Once
	callerPlaces     *sandbox.Policy
	// sharedPlaces are the shared temporary folders and the workspace,
	// resolved: a caller outside the sandbox writes them too.
	sharedPlaces []string
	// userConfig is userConfigDirs' answer, found once.
	userConfigOnce sync.Once
	userConfig     [3]string
	config         *config.Config
	configErr      error
	// policyIgnored are the loosenings of the policy that an untrusted
	// layer asked for (result.policy_ignored).
	policyIgnored []config.Ignored

	closersMu sync.Mutex
	closers   []func() // what the process ends before it exits (parked MCP sessions)

	// serving is set by mcp serve: bash moves to the background sooner
	// there (exec.AutoBackgroundServe).
	serving bool

	builtinsOnce sync.Once
	builtinList  []*tool.Tool // f.Tools(), built once (builtins)

	dispatcherOnce sync.Once
	dispatcher     *dispatch.Dispatcher
	dispatcherErr  error
}

// GlobalOptions are the flags every subcommand takes (docs/config.md).
type GlobalOptions struct {
	Root     string
	Config   string
	Agent    string
	Role     string
	Output   string
	Timeout  string
	Approval string // --approval: see Factory.approval
}

// NewFactory returns the factory of a real process.
func NewFactory() *Factory {
	f := &Factory{
		IO:         iostreams.System(),
		Now:        time.Now,
		Getwd:      sync.OnceValues(os.Getwd), // mcode never changes directory; each call stats . and $PWD
		Getenv:     os.Getenv,
		Executable: os.Executable,
		Trusted:    TrustedFiles{System: SystemConfigPath},
	}
	f.Tools = f.builtinTools
	return f
}

// Close ends what the command left open for a later step of this
// process: MCP servers a lookup started for a call that did not come.
func (f *Factory) Close() {
	f.closersMu.Lock()
	closers := f.closers
	f.closers = nil
	f.closersMu.Unlock()
	for _, c := range closers {
		c()
	}
}

// Config reads the configuration once, lazily: commands that do not need
// it never pay for viper.
func (f *Factory) Config() (*config.Config, error) {
	f.configOnce.Do(func() {
		if _, err := f.Getwd(); err != nil {
			f.configErr = err
			return
		}
		names := environNames
		if f.EnvNames != nil {
			names = f.EnvNames
		}
		f.config, f.policyIgnored, f.configErr = loadConfig(f.configFiles(), f.Getenv, names())
		if f.configErr == nil {
			// The key that seals a person's approvals is a secret of
			// mcode's own: hidden from everything the sandbox holds, and
			// from mcode's tools by the same path policy.
			fromEnv, trusted, _ := f.userConfigDirs()
			for _, d := range []string{trusted, fromEnv} {
				if d != "" && !slices.Contains(f.config.Sandbox.ReadDeny, filepath.Join(d, approval.KeyFile)) {
					f.config.Sandbox.ReadDeny = append(f.config.Sandbox.ReadDeny, filepath.Join(d, approval.KeyFile))
				}
			}
		}
	})
	return f.config, f.configErr
}

// RootDir is the workspace root: --root, MCODE_ROOT, else the current
// directory; always absolute.
func (f *Factory) RootDir() (string, error) {
	root := cmp.Or(f.Global.Root, f.Getenv("MCODE_ROOT"))
	cwd, err := f.Getwd()
	if err != nil {
		return "", err
	}
	if root == "" {
		return cwd, nil
	}
	abs := (&tool.Env{Root: cwd, UserHome: f.userHome()}).Abs(root)
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("the workspace root %s (--root or MCODE_ROOT) is not a folder", abs),
			Hint:    "give --root or MCODE_ROOT an existing folder, or leave both unset to work in the current one"}
	}
	return abs, nil
}

// HomeDir is the data directory: MCODE_HOME, else the platform's place
// for it (osdirs.DataHome: $XDG_DATA_HOME/mcode or ~/.local/share/mcode,
// ~/Library/Application Support/mcode on macOS, %LOCALAPPDATA%\mcode on
// Windows); always absolute, since the paths in it are handed on
// (receipts, tasks) to calls that may run elsewhere.
func (f *Factory) HomeDir() string {
	h := f.Getenv("MCODE_HOME")
	if h == "" {
		h = filepath.FromSlash(osdirs.DataHome(runtime.GOOS, f.Getenv, f.userHome()))
	}
	if cwd, err := f.Getwd(); err == nil && !filepath.IsAbs(h) {
		h = filepath.Join(cwd, h)
	}
	return h
}

// userHome is $HOME as this call sees it, else the home directory of the
// user database: a service or env -i runs without HOME, and rm must still
// protect the home directory and find the user's trash.
func (f *Factory) userHome() string {
	if h := f.Getenv("HOME"); h != "" {
		return h
	}
	if h := f.Getenv("USERPROFILE"); h != "" && runtime.GOOS == "windows" {
		return h
	}
	if u, err := user.Current(); err == nil {
		return u.HomeDir
	}
	return ""
}
