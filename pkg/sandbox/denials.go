package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Denial is one refusal the sandbox likely caused, read from a failed
// command's output.
type Denial struct {
	// Op is write, read, connect, or a refused system call (unshare,
	// mount, ptrace, …).
	Op   string `json:"op"`
	Path string `json:"path,omitempty"`
	Host string `json:"host,omitempty"`
	// Likely: inferred from the output, not reported by the kernel. The
	// kernel tells a process that it was refused, not the process that
	// started it, so every denial here is an inference.
	Likely bool `json:"likely"`
}

// MaxDenials bounds the denials a result lists.
const MaxDenials = 8

// regexps are compiled on first use: our code does no work at package
// init, and only a failed command's output needs them.
var regexps struct {
	once sync.Once
	// denial finds a refusal; quoted, a quoted path ('x', "x", ‘x’,
	// `x'); syscall, a refused system call named by the tool that made
	// it (unshare: unshare failed: Operation not permitted); connect, a
	// connection that failed.
	denial, quoted, syscall, connect *regexp.Regexp
}

func compileRegexps() {
	regexps.denial = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|device or resource busy|\beacces\b|\beperm\b|\berofs\b|\bebusy\b`)
	regexps.quoted = regexp.MustCompile("['\"‘`]([^'\"’`\n]+)['\"’]")
	regexps.syscall = regexp.MustCompile(`(?i)^\s*(unshare|mount|umount|chroot|setns|pivot_root|keyctl)\s*:|\b(ptrace|io_uring_setup|bpf)\(`)
	regexps.connect = regexp.MustCompile(`(?i)failed to connect to (\S+) port (\d+)|could not resolve host:? (\S+)|dial (?:tcp|udp)\S* ([^\s:]+:\d+)|temporary failure in name resolution|name or service not known|network is unreachable|\bsocket\b.*(?:permission denied|operation not permitted)|connect.*(?:permission denied|operation not permitted)`)
}

func denialRE() *regexp.Regexp  { regexps.once.Do(compileRegexps); return regexps.denial }
func quotedRE() *regexp.Regexp  { regexps.once.Do(compileRegexps); return regexps.quoted }
func syscallRE() *regexp.Regexp { regexps.once.Do(compileRegexps); return regexps.syscall }
func connectRE() *regexp.Regexp { regexps.once.Do(compileRegexps); return regexps.connect }

// Denials reads the output of a command that failed under the policy for
// the refusals the sandbox likely caused: a path outside the writable
// set, a protected path or a secret named on a line that says the
// access was refused, and with network off or an allowlist, a connection
// that failed. cwd resolves relative paths. At most MaxDenials.
func (p *Policy) Denials(output, cwd string) []Denial {
	if p.Mode == DangerFullAccess {
		return nil
	}
	var out []Denial
	seen := map[string]bool{}
	add := func(d Denial) bool {
		key := d.Op + "\x00" + d.Path + "\x00" + d.Host
		if seen[key] {
			return len(out) < MaxDenials
		}
		seen[key] = true
		out = append(out, d)
		return len(out) < MaxDenials
	}
	netLimited := p.Network.Policy != NetworkOn
	for _, line := range strings.Split(output, "\n") {
		if netLimited {
			if m := connectRE().FindStringSubmatch(line); m != nil {
				host := ""
				switch {
				case m[1] != "":
					host = m[1] + ":" + m[2]
				case m[3] != "":
					host = strings.Trim(m[3], "'\".,")
				case m[4] != "":
					host = m[4]
				}
				if !add(Denial{Op: "connect", Host: host, Likely: true}) {
					break
				}
				continue
			}
		}
		if !denialRE().MatchString(line) {
			continue
		}
		if m := syscallRE().FindStringSubmatch(line); m != nil {
			if !add(Denial{Op: strings.ToLower(m[1] + m[2]), Likely: true}) {
				return out
			}
			continue
		}
		for _, path := range linePaths(line) {
			abs := path
			switch {
			case strings.HasPrefix(path, "~/") && p.userHome != "":
				abs = filepath.Join(p.userHome, path[2:])
			case !filepath.IsAbs(path):
				abs = filepath.Join(cwd, path)
			}
			shown := Resolve(abs, false)
			if strings.HasPrefix(filepath.Clean(abs), "/proc/") {
				shown = abs // /proc/self is the command's, not this process's
			}
			if busyPinned(p, shown, line) {
				if !add(Denial{Op: "write", Path: shown, Likely: true}) {
					return out
				}
				continue
			}
			if ok, _ := p.CanRead(shown); !ok {
				if !add(Denial{Op: "read", Path: shown, Likely: true}) {
					return out
				}
				continue
			}
			// Reading is allowed everywhere but the secrets: a refusal on a
			// file mcode itself can read, or one that is not there, was a
			// write. One mcode cannot read either is the file's own
			// permissions, unless the line says it was a write.
			if ok, _ := p.CanWrite(shown); !ok && (writeWords(line) || readableHere(shown) || !existsHere(shown)) {
				if !add(Denial{Op: "write", Path: shown, Likely: true}) {
					return out
				}
			}
		}
	}
	return out
}

// linePaths are the paths a line that reports a refusal names: its
// quoted paths (touch: cannot touch 'x': …), else the field before the
// refusal (bash: line 1: x: Permission denied) and the one after it
// (PermissionError: … Permission denied: x).
func linePaths(line string) []string {
	var paths []string
	for _, m := range quotedRE().FindAllStringSubmatch(line, -1) {
		if looksLikePath(m[1]) {
			paths = append(paths, m[1])
		}
	}
	if len(paths) > 0 {
		return paths
	}
	loc := denialRE().FindStringIndex(line)
	if loc == nil {
		return nil
	}
	// The last word before the refusal (git: could not lock config file
	// .git/config: Permission denied), and the first after it.
	before := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line[:loc[0]]), ":"))
	after := strings.Fields(strings.TrimLeft(line[loc[1]:], ":,. "))
	var cands []string
	if len(before) > 0 {
		cands = append(cands, before[len(before)-1])
	}
	if len(after) > 0 {
		cands = append(cands, after[0])
	}
	for _, c := range cands {
		c = strings.TrimRight(c, ".;:,")
		if c != "" && looksLikePath(c) && (strings.ContainsAny(c, "/.~") || len(cands) == 1) {
			paths = append(paths, c)
		}
	}
	return paths
}

func looksLikePath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		(!strings.ContainsAny(s, " \t") && s != "" && len(s) < 4096)
}

// writeWords says whether a line speaks of changing a file.
func writeWords(line string) bool {
	l := strings.ToLower(line)
	for _, w := range []string{"create", "write", "touch", "remove", "delete", "move", "rename", "mkdir", "open", "read-only file system", "erofs", "unlink", "link", "copy", "cannot"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// busyPinned: a pinned folder (.git) refused a move or removal; its
// contents stay writable, so CanWrite says yes to it.
func busyPinned(p *Policy, path, line string) bool {
	if !strings.Contains(strings.ToLower(line), "busy") {
		return false
	}
	for _, d := range p.Pinned {
		if path == d {
			return true
		}
	}
	return false
}

func existsHere(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readableHere says whether this process can open path for reading: a
// refusal to read a file mcode itself can read came from the sandbox;
// one mcode cannot read was the file's own permissions.
func readableHere(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// DenialHint is what a result says after its denials: what the policy
// is, and how a person widens it.
func (p *Policy) DenialHint(ds []Denial) string {
	var ops []string
	for _, d := range ds {
		if !contains(ops, d.Op) {
			ops = append(ops, d.Op)
		}
	}
	var parts []string
	for _, op := range ops {
		switch op {
		case "write":
			parts = append(parts, "the sandbox ("+string(p.Mode)+") lets commands write only under "+p.WritableSummary()+", and keeps .git/hooks, .git/config and .mcode.yaml read-only")
		case "read":
			parts = append(parts, "secrets in the home folder (~/.ssh, ~/.aws, … and sandbox.readDeny) are hidden from commands")
		case "connect":
			parts = append(parts, "sandbox.network is "+p.Network.String())
		}
	}
	return strings.Join(parts, "; ") + ". A person can widen it: add the folder to sandbox.writable (or change sandbox.network, sandbox.mode) in the user config, or approve this one command with --sandbox danger-full-access"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
