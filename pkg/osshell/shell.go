// Package osshell decides which shell runs a bash call and how the command
// reaches it: bash -c on Unix; on Windows PowerShell (7, then Windows
// PowerShell 5.1) behind one of two wrappers, or Git Bash (seed 001,
// "Shell 选择与 PowerShell"). Every decision is a pure function of an
// injected System, so each platform's choice is tested on any platform;
// only the language-mode probe runs a process, and its caller does that.
package osshell

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
)

// Kind is how a shell takes a command.
type Kind string

// Kinds of shell.
const (
	// Bash and Sh take `-c COMMAND`. Git Bash is Bash.
	Bash Kind = "bash"
	Sh   Kind = "sh"
	// Pwsh is PowerShell 7 or later, PowerShell is Windows PowerShell
	// 5.1: both take -NoProfile -NonInteractive -Command and a wrapper.
	Pwsh       Kind = "pwsh"
	PowerShell Kind = "powershell"
)

// IsPowerShell says whether k runs PowerShell code.
func (k Kind) IsPowerShell() bool { return k == Pwsh || k == PowerShell }

// Shell is the program that runs commands.
type Shell struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
}

// Choices of bash.shell (config.ShellChoices lists them) besides an
// absolute path to a shell: auto picks by the platform's order, git-bash
// and powershell are Windows only.
const (
	ChoiceAuto       = "auto"
	ChoiceBash       = "bash"
	ChoiceSh         = "sh"
	ChoicePwsh       = "pwsh"
	ChoicePowerShell = "powershell"
	ChoiceGitBash    = "git-bash"
)

// System is what selection may look at: the platform, PATH lookups, which
// files exist, and the environment (ProgramFiles, SystemRoot).
type System struct {
	GOOS string
	// LookPath finds an executable on PATH (os/exec.LookPath).
	LookPath func(file string) (string, error)
	// IsExecutable says whether path is an executable file.
	IsExecutable func(path string) bool
	Getenv       func(key string) string
}

func (s System) windows() bool { return s.GOOS == "windows" }

func (s System) getenv(key string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}

// candidate is one place a shell may be.
type candidate struct {
	kind Kind
	// onPath is a name looked up on PATH; file an absolute path.
	onPath, file string
}

func (c candidate) String() string {
	if c.onPath != "" {
		return c.onPath + " on PATH"
	}
	return c.file
}

// ErrNotFound is wrapped by Select when no candidate exists.
var ErrNotFound = errors.New("no shell found")

// winJoin joins Windows path elements with backslashes, whatever the
// platform this runs on.
func winJoin(elem ...string) string {
	out := strings.TrimRight(elem[0], `\/`)
	for _, e := range elem[1:] {
		out += `\` + strings.Trim(e, `\/`)
	}
	return out
}

// programFiles is %ProgramFiles%, C:\Program Files when it is unset.
func (s System) programFiles() string {
	if p := s.getenv("ProgramFiles"); p != "" {
		return p
	}
	return `C:\Program Files`
}

// systemRoot is %SystemRoot%, C:\Windows when it is unset.
func (s System) systemRoot() string {
	if p := s.getenv("SystemRoot"); p != "" {
		return p
	}
	return `C:\Windows`
}

// candidates lists where each choice looks, in order.
func (s System) candidates(choice string) []candidate {
	unixBash := []candidate{{kind: Bash, file: "/bin/bash"}, {kind: Bash, onPath: "bash"}}
	unixSh := []candidate{{kind: Sh, file: "/bin/sh"}, {kind: Sh, onPath: "sh"}}
	if !s.windows() {
		switch choice {
		case ChoiceAuto:
			return append(unixBash, unixSh[1], unixSh[0])
		case ChoiceBash:
			return unixBash
		case ChoiceSh:
			return unixSh
		case ChoicePwsh:
			return []candidate{{kind: Pwsh, onPath: "pwsh"}}
		}
		return nil
	}
	pwsh := []candidate{
		{kind: Pwsh, onPath: "pwsh.exe"},
		{kind: Pwsh, file: winJoin(s.programFiles(), "PowerShell", "7", "pwsh.exe")},
	}
	powershell := []candidate{{kind: PowerShell, file: winJoin(s.systemRoot(), "System32", "WindowsPowerShell", "v1.0", "powershell.exe")}}
	gitBash := s.gitBash()
	pathBash := []candidate{{kind: Bash, onPath: "bash.exe"}}
	switch choice {
	case ChoiceAuto:
		return concat(pwsh, powershell, gitBash, pathBash)
	case ChoicePwsh:
		return pwsh
	case ChoicePowerShell:
		return powershell
	case ChoiceGitBash:
		return gitBash
	case ChoiceBash:
		return concat(gitBash, pathBash)
	case ChoiceSh:
		return []candidate{{kind: Sh, onPath: "sh.exe"}}
	}
	return nil
}

// gitBash lists where Git for Windows keeps its bash: beside the git.exe
// on PATH (…\Git\cmd\git.exe → …\Git\bin\bash.exe), then the default
// install folders.
func (s System) gitBash() []candidate {
	var out []candidate
	if s.LookPath != nil {
		if git, err := s.LookPath("git.exe"); err == nil {
			dir := winDir(winDir(git)) // …\Git\cmd\git.exe or …\Git\mingw64\bin\git.exe
			if strings.EqualFold(winBase(dir), "mingw64") {
				dir = winDir(dir)
			}
			out = append(out, candidate{kind: Bash, file: winJoin(dir, "bin", "bash.exe")})
		}
	}
	out = append(out, candidate{kind: Bash, file: winJoin(s.programFiles(), "Git", "bin", "bash.exe")})
	if p := s.getenv("ProgramFiles(x86)"); p != "" {
		out = append(out, candidate{kind: Bash, file: winJoin(p, "Git", "bin", "bash.exe")})
	}
	if p := s.getenv("LOCALAPPDATA"); p != "" {
		out = append(out, candidate{kind: Bash, file: winJoin(p, "Programs", "Git", "bin", "bash.exe")})
	}
	return out
}

func winDir(p string) string {
	i := strings.LastIndexAny(p, `\/`)
	if i <= 0 {
		return p
	}
	return p[:i]
}

func winBase(p string) string { return p[strings.LastIndexAny(p, `\/`)+1:] }

func concat(lists ...[]candidate) []candidate {
	var out []candidate
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// KindOf names the kind of a shell from its file name: pwsh, powershell,
// bash, else sh (anything that takes -c).
func KindOf(file string) Kind {
	name := strings.ToLower(winBase(file))
	name = strings.TrimSuffix(name, ".exe")
	switch name {
	case "pwsh", "pwsh-preview":
		return Pwsh
	case "powershell":
		return PowerShell
	case "bash":
		return Bash
	}
	return Sh
}

// isAbs says whether p is an absolute path on the system's platform.
func (s System) isAbs(p string) bool {
	if s.windows() {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return path.IsAbs(p)
}

// Select picks the shell for choice (bash.shell: "" or auto, a name of
// Choices, or an absolute path): the first of its candidates that exists.
func Select(s System, choice string) (Shell, error) {
	if choice == "" {
		choice = ChoiceAuto
	}
	if s.isAbs(choice) {
		if s.IsExecutable != nil && s.IsExecutable(choice) {
			return Shell{Path: choice, Kind: KindOf(choice)}, nil
		}
		return Shell{}, fmt.Errorf("%w: bash.shell names %s, which is not an executable file", ErrNotFound, choice)
	}
	cands := s.candidates(choice)
	if cands == nil {
		if !slices.Contains(config.ShellChoices, choice) {
			return Shell{}, fmt.Errorf("bash.shell is %q: expected an absolute path or one of %s", choice, strings.Join(config.ShellChoices, ", "))
		}
		return Shell{}, fmt.Errorf("%w: bash.shell %s is for Windows", ErrNotFound, choice)
	}
	tried := make([]string, 0, len(cands))
	for _, c := range cands {
		tried = append(tried, c.String())
		switch {
		case c.onPath != "" && s.LookPath != nil:
			if p, err := s.LookPath(c.onPath); err == nil {
				return Shell{Path: p, Kind: c.kind}, nil
			}
		case c.file != "" && s.IsExecutable != nil && s.IsExecutable(c.file):
			return Shell{Path: c.file, Kind: c.kind}, nil
		}
	}
	return Shell{}, fmt.Errorf("%w for bash.shell %s: tried %s", ErrNotFound, choice, strings.Join(tried, ", "))
}
