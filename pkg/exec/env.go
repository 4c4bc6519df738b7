package exec

import (
	"strings"

	"github.com/mcode-dev/mcode/pkg/spawn"
)

// Modes of layer B of the environment scrub (bash.envSanitize): the
// environment policy is spawn's, the same for everything mcode starts.
const (
	EnvOff    = spawn.EnvOff
	EnvScrub  = spawn.EnvScrub
	EnvStrict = spawn.EnvStrict
)

// jobMarkerVar carries a job's id into every process it starts, so that
// what is left of a task whose supervisor died can still be found and
// stopped (task stop), never by name.
const jobMarkerVar = "MCODE_BASH_JOB"

// JobMarkerVar is jobMarkerVar for the rest of mcode: a process that has
// it runs inside a bash call (mcode approve refuses to answer from there).
const JobMarkerVar = jobMarkerVar

// nonInteractive is set in every command's environment so that nothing
// waits for a person: git never prompts, pagers print, and an editor
// started by git commit, git rebase -i or crontab -e fails at once.
var nonInteractive = []string{
	"GIT_TERMINAL_PROMPT=0",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"EDITOR=false",
	"VISUAL=false",
	"GIT_EDITOR=false",
	"GIT_SEQUENCE_EDITOR=false",
}

func isTruthy(v string) bool { return spawn.IsTruthy(v) }

func envMode(configured string, environ []string) string { return spawn.EnvMode(configured, environ) }

func lookup(environ []string, name string) string { return spawn.Lookup(environ, name) }

// sanitizeEnv builds a command's environment from environ: the
// environment policy (layers A and B, spawn.Sanitize), then the
// non-interactive settings, then prependPath at the front of PATH.
// removed lists the names taken out (never values), sorted.
func sanitizeEnv(environ []string, mode string, allow []string, prependPath string) (env, removed []string) {
	kept, removed := spawn.Sanitize(environ, mode, allow)
	env = make([]string, 0, len(kept)+len(nonInteractive)+1)
	for _, kv := range kept {
		name, _, _ := strings.Cut(kv, "=")
		if name == jobMarkerVar || overridden(name) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, nonInteractive...)
	if prependPath != "" {
		env = setPathFront(env, prependPath)
	}
	return env, removed
}
func overridden(name string) bool {
	for _, kv := range nonInteractive {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// defaultPath is what a shell searches when PATH is unset.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// setPathFront puts dir first on PATH (the default path follows it when
// PATH was unset or empty).
func setPathFront(env []string, dir string) []string {
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			if v == "" {
				env[i] = "PATH=" + dir + ":" + defaultPath
			} else {
				env[i] = "PATH=" + dir + ":" + v
			}
			return env
		}
	}
	return append(env, "PATH="+dir+":"+defaultPath)
}
