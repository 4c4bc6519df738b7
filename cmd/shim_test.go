package cmd

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rmScenario is a tree and an rm command line, run by GNU rm and by the
// shim on two copies of the tree.
type rmScenario struct {
	name string
	args []string
}

// buildTree makes the same tree in any folder.
func buildTree(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"file": "x", "other": "y", "a b": "z", "new\nline": "n", "bad\xffname": "b",
		"d/a": "1", "d/sub/x": "2", "d/sub/y": "3", "deep/1/2/3": "4", "ro/sub/f": "5",
		"-dash": "6",
	}
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"empty", "emptier/.", "g/h"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "ro", "sub"), 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "ro", "sub"), 0o755) })
}

// treeOf lists what a folder holds: relative path and kind.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+d.Type().String())
		return nil
	})
	slices.Sort(out)
	return out
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// TestShimMatchesGNURm runs each command line through GNU rm and through
// mcode as rm, on identical trees, and wants the same exit status, the
// same messages, the same -v lines and the same tree left behind (the
// shim's removals are in the trash instead of gone).
func TestShimMatchesGNURm(t *testing.T) {
	gnu, err := exec.LookPath("rm")
	if err != nil {
		t.Skip("no rm on PATH")
	}
	if out, _ := exec.Command(gnu, "--version").Output(); !bytes.Contains(out, []byte("GNU coreutils")) {
		t.Skip("rm on PATH is not GNU rm")
	}
	scenarios := []rmScenario{
		{"no operand", nil},
		{"-f, no operand", []string{"-f"}},
		{"missing", []string{"nosuch"}},
		{"missing with -f", []string{"-f", "nosuch"}},
		{"empty name", []string{""}},
		{"file", []string{"file"}},
		{"files, one missing, in order", []string{"file", "nosuch", "other", "also-missing"}},
		{"directory without -r", []string{"d"}},
		{"-d on a full directory", []string{"-d", "d"}},
		{"-d on an empty directory", []string{"-dv", "empty"}},
		{"-r", []string{"-r", "d"}},
		{"-rv on a tree", []string{"-rv", "d", "deep"}},
		{"-rv with a trailing slash", []string{"-rv", "g/"}},
		{"-v on odd names", []string{"-v", "a b", "new\nline", "bad\xffname", "--", "-dash"}},
		{"odd missing names", []string{"it's", "x\ny", "\xfe", "é'x"}},
		{"dot", []string{"."}},
		{"-r dot", []string{"-r", "."}},
		{"-r dotdot", []string{"-r", ".."}},
		{"-rf ./..", []string{"-rf", "./.."}},
		{"-r d/.", []string{"-r", "d/."}},
		{"-d dot", []string{"-d", "."}},
		{"file with a slash", []string{"file/"}},
		{"-f file with a slash", []string{"-f", "file/"}},
		{"missing with a slash", []string{"nosuch/"}},
		{"symlink to a directory", []string{"link"}},
		{"symlink with a slash", []string{"link/"}},
		{"-rv symlink with a slash", []string{"-rv", "link/"}},
		{"dangling symlink", []string{"-v", "dangling"}},
		{"read-only subdirectory", []string{"-r", "ro"}},
		{"options after operands", []string{"d", "-r", "--verbose"}},
		{"-- ends options", []string{"--", "-r"}},
		{"invalid option", []string{"-z", "file"}},
		{"unknown long option", []string{"--bogus", "file"}},
		{"long option prefixes", []string{"--rec", "--for", "nosuch", "empty"}},
		{"--force with an argument", []string{"--force=1", "file"}},
		{"bad --interactive", []string{"--interactive=maybe", "file"}},
		{"--interactive=never", []string{"--interactive=never", "-v", "file"}},
		{"--dir", []string{"--dir", "nosuch", "empty"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			base := t.TempDir()
			gnuDir, shimDir := filepath.Join(base, "gnu"), filepath.Join(base, "shim")
			buildTree(t, gnuDir)
			buildTree(t, shimDir)

			cmd := exec.Command(gnu, sc.args...)
			cmd.Args[0] = "rm"
			cmd.Dir = gnuDir
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			var gout, gerr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &gout, &gerr
			gcode := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				gcode = ee.ExitCode()
			}

			f, bufs := testFactory(t, map[string]string{
				"HOME": filepath.Join(base, "home"), "XDG_DATA_HOME": filepath.Join(base, "home", ".local", "share"),
				"LC_ALL": "C.UTF-8",
			})
			f.Getwd = func() (string, error) { return shimDir, nil }
			code := RunRm(context.Background(), f, sc.args)

			if code != gcode {
				t.Errorf("exit %d, GNU rm %d", code, gcode)
			}
			if got, want := bufs.errOut.String(), gerr.String(); got != want {
				t.Errorf("stderr:\n%s\nGNU rm:\n%s", got, want)
			}
			if diff := cmp.Diff(sortedLines(gout.String()), sortedLines(bufs.out.String())); diff != "" {
				t.Errorf("stdout (-GNU +shim):\n%s", diff)
			}
			if diff := cmp.Diff(treeOf(t, gnuDir), treeOf(t, shimDir)); diff != "" {
				t.Errorf("tree left (-GNU +shim):\n%s", diff)
			}
		})
	}
}

// The shim's own behaviour where it differs from GNU rm on purpose.
func TestShimRefusals(t *testing.T) {
	run := func(t *testing.T, env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		base := t.TempDir()
		buildTree(t, base)
		if env == nil {
			env = map[string]string{}
		}
		env["LC_ALL"] = "C.UTF-8"
		if _, ok := env["HOME"]; !ok {
			env["HOME"] = filepath.Join(t.TempDir(), "home")
		}
		f, bufs := testFactory(t, env)
		f.Getwd = func() (string, error) { return base, nil }
		code := RunRm(context.Background(), f, args)
		return code, bufs.out.String(), bufs.errOut.String()
	}
	t.Run("root, whatever the flags", func(t *testing.T) {
		code, _, stderr := run(t, nil, "-rf", "/")
		want := "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n"
		if code != 1 || stderr != want {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		code, _, stderr = run(t, nil, "-rf", "--no-preserve-root", "/")
		if code != 1 || stderr != "rm: refusing to remove '/': it is the root directory\n" {
			t.Errorf("--no-preserve-root: exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("home and its parents", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "users", "me")
		os.MkdirAll(home, 0o755)
		code, _, stderr := run(t, map[string]string{"HOME": home}, "-rf", home, filepath.Dir(home))
		if code != 1 || !strings.Contains(stderr, "it is the home directory") || !strings.Contains(stderr, "it holds the home directory") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		if _, err := os.Stat(home); err != nil {
			t.Fatal("home is gone")
		}
	})
	t.Run("workspace root from MCODE_ROOT", func(t *testing.T) {
		root := t.TempDir()
		code, _, stderr := run(t, map[string]string{"MCODE_ROOT": root}, "-rf", root)
		if code != 1 || !strings.Contains(stderr, "it is the workspace root") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("-i and -I never wait for an answer without a terminal", func(t *testing.T) {
		for _, args := range [][]string{{"-i", "file"}, {"-I", "-r", "d"}, {"--interactive", "file"}} {
			code, _, stderr := run(t, nil, args...)
			if code != 1 || stderr != "rm: cannot ask for confirmation: standard input is not a terminal; nothing removed\n" {
				t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
			}
		}
	})
	t.Run("-i on a terminal asks and obeys", func(t *testing.T) {
		base := t.TempDir()
		buildTree(t, base)
		f, bufs := testFactory(t, map[string]string{"LC_ALL": "C.UTF-8"})
		f.Getwd = func() (string, error) { return base, nil }
		f.IO.InTTY = true
		bufs.in.WriteString("y\nn\n")
		code := RunRm(context.Background(), f, []string{"-i", "file", "other"})
		want := "rm: remove regular file 'file'? rm: remove regular file 'other'? "
		if code != 0 || bufs.errOut.String() != want {
			t.Errorf("exit %d, stderr %q", code, bufs.errOut.String())
		}
		if _, err := os.Lstat(filepath.Join(base, "file")); err == nil {
			t.Error("answered y, file still there")
		}
		if _, err := os.Lstat(filepath.Join(base, "other")); err != nil {
			t.Error("answered n, other is gone")
		}
	})
	t.Run("help and version", func(t *testing.T) {
		code, out, _ := run(t, nil, "--help")
		if code != 0 || !strings.HasPrefix(out, "Usage: rm [OPTION]... [FILE]...") || !strings.Contains(out, "trash") {
			t.Errorf("--help: %d %q", code, out)
		}
		code, out, _ = run(t, nil, "--version")
		if code != 0 || !strings.HasPrefix(out, "rm (mcode) ") {
			t.Errorf("--version: %d %q", code, out)
		}
	})
	t.Run("a broken config stops rm", func(t *testing.T) {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "bad.yaml")
		os.WriteFile(cfg, []byte("trash: [1, 2"), 0o644)
		code, _, stderr := run(t, map[string]string{"MCODE_CONFIG": cfg}, "file")
		if code != 1 || !strings.HasPrefix(stderr, "rm: ") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestShimUsesTheTrash checks that what the shim removes is in the
// trash, at trash.dir when that is set.
func TestShimUsesTheTrash(t *testing.T) {
	base := t.TempDir()
	buildTree(t, base)
	custom := filepath.Join(t.TempDir(), "my-trash")
	f, bufs := testFactory(t, map[string]string{"MCODE_TRASH_DIR": custom})
	f.Getwd = func() (string, error) { return base, nil }
	if code := RunRm(context.Background(), f, []string{"-r", "d", "file"}); code != 0 {
		t.Fatalf("exit %d: %s", code, bufs.errOut)
	}
	for _, n := range []string{"d", "file"} {
		if _, err := os.Stat(filepath.Join(custom, "files", n)); err != nil {
			t.Errorf("%s not in trash.dir: %v", n, err)
		}
		if _, err := os.Stat(filepath.Join(custom, "info", n+".trashinfo")); err != nil {
			t.Errorf("%s has no trashinfo: %v", n, err)
		}
	}
}

func TestShimInstall(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcode")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	f, bufs := testFactory(t, map[string]string{"MCODE_HOME": filepath.Join(dir, "home")})
	f.Executable = func() (string, error) { return exe, nil }
	code, m := runJSON(t, f, bufs, "shim", "install")
	link := filepath.Join(dir, "home", "shims", "rm")
	if target, err := os.Readlink(link); code != 0 || err != nil || target != exe {
		t.Fatalf("exit %d, %v; link -> %q, %v", code, m, target, err)
	}
	if r := m["result"].(map[string]any); r["link"] != link || m["tool"] != "shim install" {
		t.Errorf("envelope %v", m)
	}
	f, bufs = testFactory(t, nil)
	f.Executable = func() (string, error) { return exe, nil }
	custom := filepath.Join(dir, "bin")
	if code, m := runJSON(t, f, bufs, "shim", "install", "--dir", custom); code != 0 {
		t.Fatalf("--dir: %d %v", code, m)
	}
	if target, _ := os.Readlink(filepath.Join(custom, "rm")); target != exe {
		t.Errorf("--dir link -> %q", target)
	}
	blocked := filepath.Join(dir, "file")
	os.WriteFile(blocked, nil, 0o644)
	f, bufs = testFactory(t, nil)
	f.Executable = func() (string, error) { return exe, nil }
	if code, m := runJSON(t, f, bufs, "shim", "install", "--dir", blocked); code != 1 || errCode(m) != "permission" {
		t.Errorf("unwritable --dir: %d %v", code, m)
	}
}
