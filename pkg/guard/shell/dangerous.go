package shell

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Programs that fetch from the network.
var downloaders = lazySet("curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request")

// dangerous records the known dangerous forms of one simple command;
// fromStdin: xargs adds operands read at run time.
func (a *analyzer) dangerous(c Command, opts Options, fromStdin bool) {
	w := c.Words
	if len(w) == 0 {
		return
	}
	name := c.Name()
	switch {
	case name == "rm":
		recursive, noPreserve, targets := rmOptions(w)
		for _, t := range targets {
			if recursive && rootish(t, opts) {
				a.danger("rm_root", "rm -r of "+t+" deletes a whole system or home folder", c)
				return
			}
		}
		if noPreserve {
			a.danger("rm_root", "rm --no-preserve-root lets rm delete /", c)
		}
		if recursive && fromStdin {
			a.danger("xargs_rm", "xargs rm -r deletes whatever folders arrive on its input, with no list to check first", c)
		}
	case name == "find":
		if slices.Contains(w[1:], "-delete") {
			a.danger("find_delete", "find -delete removes every file it matches, with no list to check first", c)
			return
		}
		for _, ex := range findExecs(w) {
			inner, _ := unwrapAll(plainArgv(w[ex.start:ex.end]))
			if len(inner.words) > 0 && path.Base(inner.words[0]) == "rm" {
				a.danger("find_delete", "find "+ex.action+" rm removes every file it matches, with no list to check first", c)
				return
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs":
		a.danger("mkfs", name+" erases the file system of a device", c)
	case name == "dd":
		for _, arg := range w[1:] {
			if of, ok := strings.CutPrefix(arg, "of="); ok && isDevice(of) {
				a.danger("disk_write", "dd of="+of+" overwrites a device", c)
			}
		}
	case name == "shred" || name == "tee" || name == "cp":
		for _, arg := range w[1:] {
			if isDisk(arg) {
				a.danger("disk_write", name+" onto "+arg+" overwrites a disk", c)
				return
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		recursive := false
		targets := operands(w[1:], func(opt string) {
			if opt == "--recursive" || (!strings.HasPrefix(opt, "--") && strings.Contains(opt, "R")) {
				recursive = true
			}
		})
		if len(targets) > 0 {
			targets = targets[1:] // the mode or owner
		}
		for _, t := range targets {
			if recursive && rootish(t, opts) {
				a.danger("chmod_root", name+" -R of "+t+" changes every file of a system or home folder", c)
				return
			}
		}
	case name == "git":
		a.gitPush(c, opts)
	}
}

// rmOptions reads rm's words: -r (any spelling), --no-preserve-root,
// and the operands.
func rmOptions(w []string) (recursive, noPreserve bool, targets []string) {
	targets = operands(w[1:], func(opt string) {
		switch {
		case opt == "--recursive":
			recursive = true
		case opt == "--no-preserve-root":
			noPreserve = true
		case !strings.HasPrefix(opt, "--") && strings.ContainsAny(opt, "rR"):
			recursive = true
		}
	})
	return recursive, noPreserve, targets
}

// operands are the words that are not options (up to --, after which
// all are); each option is passed to opt.
func operands(words []string, opt func(string)) []string {
	var out []string
	for i, arg := range words {
		if arg == "--" {
			return append(out, words[i+1:]...)
		}
		if len(arg) > 1 && arg[0] == '-' {
			opt(arg)
			continue
		}
		out = append(out, arg)
	}
	return out
}

// rootish says whether a target names /, a top-level folder, the home
// folder, everything in one of them, or a path that is / when a variable
// is empty ($DIR/*).
func rootish(t string, opts Options) bool {
	t = strings.ReplaceAll(t, `"`, "")
	t = strings.ReplaceAll(t, "'", "")
	home := opts.Home
	for _, h := range []string{"${HOME}", "$HOME", "~"} {
		if rest, ok := strings.CutPrefix(t, h); ok && (rest == "" || rest[0] == '/') {
			if home == "" {
				home = "/home/user"
			}
			t = home + rest
			break
		}
	}
	if user, rest, ok := strings.Cut(strings.TrimPrefix(t, "~"), "/"); strings.HasPrefix(t, "~") && user != "" {
		// ~NAME is NAME's home folder, ~+ the working one, ~- the one before.
		switch {
		case user == "+":
			t = "./" + rest
		case ok && strings.Trim(rest, "/*.") != "":
			return false
		default:
			return true
		}
	}
	if dynamicRoot().MatchString(t) {
		return true
	}
	if t == "*" || t == ".*" || t == "." || t == "./" || t == "./*" {
		return opts.Dir == "/" || (opts.Dir != "" && opts.Dir == opts.Home)
	}
	if !strings.HasPrefix(t, "/") {
		return false
	}
	clean := filepath.Clean(strings.TrimSuffix(strings.TrimSuffix(t, "*"), "/."))
	if clean == "/" || strings.Count(clean, "/") == 1 {
		return true
	}
	return home != "" && clean == filepath.Clean(home)
}

// dynamicRoot matches $X/ and ${X}/* : / itself when X is empty.
var dynamicRoot = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/+\*?$`)
})

// isDevice is a device file other than the harmless sinks.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	switch p {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full":
		return false
	}
	return !strings.HasPrefix(p, "/dev/fd/") && !strings.HasPrefix(p, "/dev/pts/")
}

// isDisk is a block device of a disk.
func isDisk(p string) bool {
	rest, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "dm-", "md", "loop", "mapper/"} {
		if strings.HasPrefix(rest, prefix) {
			return true
		}
	}
	return false
}

// gitPush flags a force push (or a deletion) of a protected branch.
func (a *analyzer) gitPush(c Command, opts Options) {
	if len(opts.ProtectedBranches) == 0 {
		return
	}
	w := c.Words[1:]
	for len(w) > 0 && strings.HasPrefix(w[0], "-") { // git's own options
		if (w[0] == "-C" || w[0] == "-c" || w[0] == "--git-dir" || w[0] == "--work-tree" || w[0] == "--namespace") && len(w) > 1 {
			w = w[1:]
		}
		w = w[1:]
	}
	if len(w) == 0 || w[0] != "push" {
		return
	}
	force, everything := false, false
	var pos []string
	for i := 1; i < len(w); i++ {
		arg := w[i]
		switch {
		case arg == "-f" || arg == "--force" || strings.HasPrefix(arg, "--force-with-lease") || arg == "--force-if-includes" ||
			arg == "-d" || arg == "--delete":
			force = true
		case arg == "--mirror" || arg == "--all" || arg == "--branches" || arg == "--prune":
			everything = true
		case arg == "-o" || arg == "--push-option" || arg == "--repo" || arg == "--receive-pack" || arg == "--exec":
			i++
		case strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.Contains(arg, "f"):
			force = true
		case strings.HasPrefix(arg, "-"):
		default:
			pos = append(pos, arg)
		}
	}
	var refspecs []string
	if len(pos) > 1 {
		refspecs = pos[1:]
	}
	for _, r := range refspecs {
		plus := strings.HasPrefix(r, "+")
		r = strings.TrimPrefix(r, "+")
		src, dst, hasColon := strings.Cut(r, ":")
		if !hasColon {
			dst = src
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if (force || plus || (hasColon && src == "")) && slices.Contains(opts.ProtectedBranches, dst) {
			a.danger("force_push", "a force push rewrites the protected branch "+dst, c)
			return
		}
	}
	if (force && len(refspecs) == 0) || (everything && force) || slices.Contains(w, "--mirror") {
		a.danger("force_push", "a force push whose branch is not named may rewrite a protected branch ("+strings.Join(opts.ProtectedBranches, ", ")+")", c)
	}
}

// selfApproval refuses mcode approve and mcode deny from inside a
// command: the agent whose call waits for a person must not answer for
// them.
func (a *analyzer) selfApproval(c Command) bool {
	if c.Name() != "mcode" {
		return false
	}
	valued := set("--root", "--config", "--agent", "--role", "-o", "--output", "--timeout", "--approval")
	for i := 1; i < len(c.Words); i++ {
		arg := c.Words[i]
		if strings.HasPrefix(arg, "-") {
			if valued[arg] {
				i++
			}
			continue
		}
		if arg == "approve" || arg == "deny" {
			a.out.SelfApproval = append(a.out.SelfApproval, c.Text)
			return true
		}
		return false
	}
	return false
}

// forkBomb is a function that runs itself twice at once: piped into
// itself, or in the background.
func forkBomb(fn *syntax.FuncDecl) bool {
	name := fn.Name.Value
	calls := func(st *syntax.Stmt) bool {
		if st == nil {
			return false
		}
		c, ok := st.Cmd.(*syntax.CallExpr)
		return ok && len(c.Args) > 0 && c.Args[0].Lit() == name
	}
	found := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (calls(n.X) || calls(n.Y)) {
				found = true
			}
		case *syntax.Stmt:
			if n.Background && calls(n) {
				found = true
			}
		}
		return !found
	})
	return found
}

// hasDownload says whether a word or statement runs a downloader inside
// (a $(…), `…` or <(…) of curl, wget, …).
func hasDownload(s *scope, n syntax.Node) bool {
	if n == nil {
		return false
	}
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			words, static := s.words(c.Args)
			inner, _ := unwrapAll(argv{words: words, static: static})
			if len(inner.words) > 0 && downloaders()[path.Base(inner.words[0])] {
				found = true
			}
		}
		return !found
	})
	return found
}
