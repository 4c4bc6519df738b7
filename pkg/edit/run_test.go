package edit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func testEnv(t *testing.T) *tool.Env {
	t.Helper()
	dir := t.TempDir()
	return &tool.Env{Root: dir, UserHome: dir, Now: time.Now}
}

func strp(s string) *string { return &s }

// editFile writes data to name under env's root, runs one edit and
// returns the result and the file's bytes after it.
func editFile(t *testing.T, env *tool.Env, name string, data []byte, p Params) (*Result, []byte, error) {
	t.Helper()
	path := filepath.Join(env.Root, name)
	if data != nil {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.FilePath = name
	resp, err := Run(context.Background(), env, p)
	after, _ := os.ReadFile(path)
	if err != nil {
		return nil, after, err
	}
	return resp.Result.(*Result), after, nil
}

func one(old, repl string) Params { return Params{OldString: strp(old), NewString: strp(repl)} }

// TestRunKeepsEveryOtherByte edits files of every kind and checks the
// exact bytes that come out.
func TestRunKeepsEveryOtherByte(t *testing.T) {
	cases := []struct {
		name       string
		data, want []byte
		p          Params
		match, enc string
	}{
		{"crlf", []byte("a\r\nb\r\nc\r\n"), []byte("a\r\nB\r\nB2\r\nc\r\n"), one("b\n", "B\nB2\n"), textedit.MatchExact, "utf-8"},
		{"mixed", []byte("a\r\nb\nc\r\nd\n"), []byte("a\r\nb\nC\r\nd\n"), one("c", "C"), textedit.MatchExact, "utf-8"},
		{"bom", []byte("\xEF\xBB\xBFx = 1\ny = 2\n"), []byte("\xEF\xBB\xBFx = 1\ny = 3\n"), one("y = 2", "y = 3"), textedit.MatchExact, "utf-8-bom"},
		{"bom first line", []byte("\xEF\xBB\xBFx = 1\n"), []byte("\xEF\xBB\xBFx = 9\n"), one("x = 1", "x = 9"), textedit.MatchExact, "utf-8-bom"},
		{"utf-16le", []byte("\xFF\xFEa\x00\r\x00\n\x00b\x00\r\x00\n\x00"), []byte("\xFF\xFEa\x00\r\x00\n\x00\xe9\x00\r\x00\n\x00"),
			one("b", "é"), textedit.MatchExact, "utf-16le"},
		{"latin-1 ascii edit", []byte("caf\xe9\nx = 1\nna\xefve\n"), []byte("caf\xe9\nx = 2\nna\xefve\n"), one("x = 1", "x = 2"), textedit.MatchExact, "latin-1"},
		{"no final newline", []byte("a\nb"), []byte("a\nB"), one("b", "B"), textedit.MatchExact, "utf-8"},
		{"final newline kept", []byte("a\nb\n"), []byte("a\nB\n"), one("b", "B"), textedit.MatchExact, "utf-8"},
		{"fuzzy leaves CJK alone", []byte("\u201c\u4e2d\u6587\u201d\u3000\u5168\u89d2\nx := \u201cold\u201d\n\u3000\u3000\u2018\u5c3e\u2019\n"),
			[]byte("\u201c\u4e2d\u6587\u201d\u3000\u5168\u89d2\nx := \"new\"\n\u3000\u3000\u2018\u5c3e\u2019\n"),
			one(`x := "old"`, `x := "new"`), textedit.MatchFuzzy, "utf-8"},
		{"replace_all literal dollars", []byte("A A\n"), []byte("$& $&\n"), Params{OldString: strp("A"), NewString: strp("$&"), ReplaceAll: true}, textedit.MatchExact, "utf-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			res, after, err := editFile(t, env, "f.txt", c.data, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, c.want) {
				t.Errorf("bytes\n got %q\nwant %q", after, c.want)
			}
			if res.Match != c.match || res.Encoding != c.enc {
				t.Errorf("match %s encoding %s, want %s %s", res.Match, res.Encoding, c.match, c.enc)
			}
			if res.SHA256 != textedit.SHA256Hex(after) || res.BytesAfter != len(after) || res.BytesBefore != len(c.data) {
				t.Errorf("sha256/bytes do not describe the file: %+v", res)
			}
			if strings.ContainsRune(res.Diff, '\uFFFD') {
				t.Errorf("diff holds U+FFFD:\n%s", res.Diff)
			}
		})
	}
}

func TestRunRefusesBeforeWriting(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		p    Params
		code tool.Code
	}{
		{"latin-1 and utf-8 mixed, non-ascii", []byte("caf\xe9\nna\xc3\xafve\n"), one("caf", "caf\u00e9"), tool.CodeEncoding},
		{"latin-1 cannot hold it", []byte("caf\xe9\n"), one("caf", "caf\u8336"), tool.CodeEncoding},
		{"binary", []byte("\x00\x01\x02ELF"), one("ELF", "FLE"), tool.CodeBinaryFile},
		{"utf-16 lone surrogate", []byte("\xFF\xFEa\x00\x00\xD8b\x00"), one("a", "b"), tool.CodeEncoding},
		{"stale", []byte("a\n"), Params{OldString: strp("a"), NewString: strp("b"), IfMatch: strings.Repeat("0", 64)}, tool.CodeStale},
		{"no match", []byte("a\n"), one("b", "c"), tool.CodeNoMatch},
		{"both forms", []byte("a\n"), Params{OldString: strp("a"), NewString: strp("b"), Edits: []Edit{{OldString: "a", NewString: "c"}}}, tool.CodeUsage},
		{"missing new_string", []byte("a\n"), Params{OldString: strp("a")}, tool.CodeUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			_, after, err := editFile(t, env, "f.txt", c.data, c.p)
			if te := tool.AsError(err); te == nil || te.Code != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if !bytes.Equal(after, c.data) {
				t.Errorf("file changed to %q", after)
			}
			entries, _ := os.ReadDir(env.Root)
			if len(entries) != 1 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

func TestRunIfMatchAndDryRun(t *testing.T) {
	env := testEnv(t)
	data := []byte("v = 1\n")
	p := one("v = 1", "v = 2")
	p.IfMatch = strings.ToUpper(textedit.SHA256Hex(data))
	p.DryRun = true
	res, after, err := editFile(t, env, "f.txt", data, p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, data) || !res.DryRun || !strings.Contains(res.Diff, "+v = 2") {
		t.Fatalf("dry run wrote %q or lacks the diff: %+v", after, res)
	}
	if res.SHA256 != textedit.SHA256Hex([]byte("v = 2\n")) {
		t.Errorf("dry run sha256 %s is not that of the would-be file", res.SHA256)
	}
	// A touch changes the time, not the bytes: the stamp still matches.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(env.Root, "f.txt"), later, later)
	p.DryRun = false
	res, after, err = editFile(t, env, "f.txt", nil, p)
	if err != nil || string(after) != "v = 2\n" {
		t.Fatalf("after touch: %v %q", err, after)
	}
	// The old stamp is now stale.
	_, after, err = editFile(t, env, "f.txt", nil, one("v = 2", "v = 3"))
	if err != nil {
		t.Fatal(err)
	}
	p = one("v = 3", "v = 4")
	p.IfMatch = res.SHA256
	_, after2, err := editFile(t, env, "f.txt", nil, p)
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeStale || !bytes.Equal(after, after2) {
		t.Errorf("stale stamp: %v, file %q", err, after2)
	}
}

func TestRunKeepsModeAndWritesThroughSymlinks(t *testing.T) {
	env := testEnv(t)
	real := filepath.Join(env.Root, "run.sh")
	os.WriteFile(real, []byte("#!/bin/sh\necho hi\n"), 0o755)
	os.Chmod(real, 0o755)
	os.Symlink("run.sh", filepath.Join(env.Root, "link.sh"))
	res, _, err := editFile(t, env, "link.sh", nil, one("hi", "ho"))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(filepath.Join(env.Root, "link.sh")); info.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	info, _ := os.Stat(real)
	data, _ := os.ReadFile(real)
	if info.Mode().Perm() != 0o755 || string(data) != "#!/bin/sh\necho ho\n" {
		t.Errorf("target mode %v content %q", info.Mode().Perm(), data)
	}
	if res.Target != real {
		t.Errorf("target = %q, want %q", res.Target, real)
	}
}

func TestRunRefusesWhatIsNotAFile(t *testing.T) {
	env := testEnv(t)
	os.Mkdir(filepath.Join(env.Root, "dir"), 0o755)
	fifo := filepath.Join(env.Root, "pipe")
	mkfifo(t, fifo)
	os.WriteFile(filepath.Join(env.Root, "main.go"), nil, 0o644)
	for name, code := range map[string]tool.Code{
		"dir": tool.CodeIsDirectory, "pipe": tool.CodeSpecialFile, "/dev/null": tool.CodeSpecialFile,
		"mian.go": tool.CodeNotFound, "main.go/x": tool.CodeNotADirectory,
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Run(context.Background(), env, Params{FilePath: name, OldString: strp("a"), NewString: strp("b")})
			done <- err
		}()
		select {
		case err := <-done:
			if te := tool.AsError(err); te == nil || te.Code != code {
				t.Errorf("%s: %v, want %s", name, err, code)
			} else if name == "mian.go" && !strings.Contains(te.Hint, "main.go") {
				t.Errorf("not_found hint %q names no near file", te.Hint)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: edit hangs", name)
		}
	}
}

func TestRunMultiEditOutput(t *testing.T) {
	env := testEnv(t)
	data := []byte("package p\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n")
	res, after, err := editFile(t, env, "p.go", data, Params{Edits: []Edit{
		{OldString: "return 1", NewString: "return 10"},
		{OldString: "return 2", NewString: "return 20"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != "package p\n\nfunc a() int { return 10 }\n\nfunc b() int { return 20 }\n" {
		t.Errorf("content %q", after)
	}
	if res.Replacements != 2 || res.LineStart != 3 || res.LineEnd != 5 || res.Additions != 2 || res.Removals != 2 || res.FirstChangedLine != 3 {
		t.Errorf("result %+v", res)
	}
	want := "--- a/p.go\n+++ b/p.go\n@@ -1,5 +1,5 @@\n package p\n \n-func a() int { return 1 }\n+func a() int { return 10 }\n \n-func b() int { return 2 }\n+func b() int { return 20 }\n"
	if res.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", res.Diff, want)
	}
}

// TestRunConcurrentEditsInOneProcess runs twenty edits of one file at
// once; the lock must serialize them so that none is lost. (The same
// with twenty processes is testdata/script/edit_concurrent.txtar.)
func TestRunConcurrentEditsInOneProcess(t *testing.T) {
	env := testEnv(t)
	var data strings.Builder
	for i := range 20 {
		data.WriteString("line " + string(rune('A'+i)) + " = old\n")
	}
	path := filepath.Join(env.Root, "f.txt")
	os.WriteFile(path, []byte(data.String()), 0o644)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			anchor := "line " + string(rune('A'+i)) + " = old"
			_, err := Run(context.Background(), env, Params{FilePath: "f.txt", OldString: strp(anchor), NewString: strp(strings.Replace(anchor, "old", "new", 1))})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got, _ := os.ReadFile(path)
	if want := strings.ReplaceAll(data.String(), "old", "new"); string(got) != want {
		t.Errorf("lost edits:\n%s", got)
	}
}

// TestLockFollowsTheReplacedInode: a waiter must end up holding the lock of
// the file the path names now, not of the inode an atomic rename replaced
// while it waited, or two writers would hold "the" lock at once. (flock's
// polling reopens the path; the inode check after locking closes the
// window between that open and the lock, which the twenty-process script
// exercises.)
func TestLockFollowsTheReplacedInode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	os.WriteFile(path, []byte("v1"), 0o644)
	unlockA, err := textedit.LockFile(context.Background(), "f.txt", path)
	if err != nil {
		t.Fatal(err)
	}
	gotB := make(chan func(), 1)
	go func() {
		unlockB, err := textedit.LockFile(context.Background(), "f.txt", path)
		if err != nil {
			t.Error(err)
			close(gotB)
			return
		}
		gotB <- unlockB
	}()
	time.Sleep(50 * time.Millisecond) // B now waits on the first inode
	if err := fsutil.WriteFileAtomic(path, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlockA()
	unlockB, ok := <-gotB
	if !ok {
		return
	}
	defer unlockB()
	// B must hold the lock of the file at the path now: C cannot take it.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if unlockC, err := textedit.LockFile(ctx, "f.txt", path); err == nil {
		unlockC()
		t.Fatal("a second process took the lock of the new file while B held the old one")
	}
}

// TestRunWaitsForTheLockUntilItsTimeLimit: an edit never changes a file
// another process holds; when the call's time runs out it says so.
func TestRunWaitsForTheLockUntilItsTimeLimit(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Root, "f.txt")
	os.WriteFile(path, []byte("a\n"), 0o644)
	unlock, err := textedit.LockFile(context.Background(), "f.txt", path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = Run(ctx, env, Params{FilePath: "f.txt", OldString: strp("a"), NewString: strp("b")})
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeTimeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "a\n" {
		t.Errorf("file changed under another's lock: %q", data)
	}
}

// endsOnceLocked is a context that ends as soon as someone holds the
// flock on path: a call interrupted, or out of time, while it works on
// the file under its lock.
type endsOnceLocked struct {
	context.Context
	cancel context.CancelFunc
	path   string
}

func newEndsOnceLocked(path string) *endsOnceLocked {
	ctx, cancel := context.WithCancel(context.Background())
	return &endsOnceLocked{Context: ctx, cancel: cancel, path: path}
}

func (c *endsOnceLocked) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	fl := flock.New(c.path, flock.SetFlag(os.O_RDONLY))
	if ok, _ := fl.TryLock(); !ok {
		c.cancel()
	}
	fl.Close()
	return c.Context.Err()
}

// TestNothingIsWrittenOnceTheCallerGaveUp: a call interrupted or out of
// time while it works leaves the file as it was, whatever it had
// computed; and no temp file stays behind.
func TestNothingIsWrittenOnceTheCallerGaveUp(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Root, "f.txt")
	os.WriteFile(path, []byte("a\n"), 0o644)
	ctx := newEndsOnceLocked(path)
	_, err := Run(ctx, env, Params{FilePath: "f.txt", OldString: strp("a"), NewString: strp("b")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("edit: err = %v, want the context's", err)
	}
	if _, err := Write(newEndsOnceLocked(path), env, WriteParams{FilePath: "f.txt", Content: "b\n"}); !errors.Is(err, context.Canceled) {
		t.Errorf("write: err = %v, want the context's", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "a\n" {
		t.Errorf("file changed by a call given up on: %q", data)
	}
	// A new file has no lock to wait for: a call already given up on
	// creates nothing.
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(gone, env, WriteParams{FilePath: "new.txt", Content: "b\n"}); !errors.Is(err, context.Canceled) {
		t.Errorf("create: err = %v, want the context's", err)
	}
	if entries, _ := os.ReadDir(env.Root); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// A Latin-1 or Windows-1252 file is edited as read and grep show it: the
// text quoted from them matches, and the file stays in its encoding.
func TestRunEditsSingleByteFileAsDecoded(t *testing.T) {
	for _, c := range []struct {
		name       string
		data, want []byte
		old, repl  string
	}{
		{"latin-1", []byte("caf\xe9 au lait\r\nplain\r\n"), []byte("th\xe9 au lait\r\nplain\r\n"), "café au", "thé au"},
		{"windows-1252", []byte("\x93quoted\x94 text\n"), []byte("\x93said\x94 text\n"), "“quoted”", "“said”"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Root, "f.txt")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			old, repl := c.old, c.repl
			if _, err := Run(context.Background(), env, Params{FilePath: "f.txt", OldString: &old, NewString: &repl}); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, c.want) {
				t.Errorf("file = %q, want %q", got, c.want)
			}
		})
	}
}
