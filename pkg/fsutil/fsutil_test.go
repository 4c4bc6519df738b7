package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFileAtomicKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(p, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755 kept", info.Mode().Perm())
	}
	data, _ := os.ReadFile(p)
	if string(data) != "new" {
		t.Errorf("content = %q", data)
	}
	fresh := filepath.Join(dir, "fresh.txt")
	if err := WriteFileAtomic(fresh, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	info, _ = os.Stat(fresh)
	if want := os.FileMode(0o666) &^ umask(); info.Mode().Perm() != want {
		t.Errorf("new file mode = %v, want %v", info.Mode().Perm(), want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestWriteFileAtomicNoSyncReplacesWholeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "exit")
	for _, content := range []string{"first record", "second"} {
		if err := WriteFileAtomicNoSync(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(p); string(data) != content {
			t.Errorf("content = %q, want %q", data, content)
		}
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600&^umask() {
		t.Errorf("mode = %v", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	if err := WriteFileAtomicNoSync(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}

func TestCreateUniqueNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		p, err := CreateUnique(dir, "x-", ".txt", []byte{byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("name %s reused", p)
		}
		seen[p] = true
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 50 {
		t.Errorf("%d files, want 50 (no temp left)", len(entries))
	}
}

func TestNotFoundSuggestsNearNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"main.go", "main_test.go", "README.md", "zzz.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	got := NearNames(filepath.Join(dir, "mian.go"), 3)
	if diff := cmp.Diff([]string{filepath.Join(dir, "main.go")}, got); diff != "" {
		t.Errorf("near names (-want +got):\n%s", diff)
	}
	e := NotFound("readme.md", filepath.Join(dir, "readme.md"))
	if e.Code != "not_found" || !strings.Contains(e.Hint, "README.md") {
		t.Errorf("NotFound = %+v", e)
	}
	e = NotFound("nope/x", filepath.Join(dir, "nope", "x"))
	if !strings.Contains(e.Hint, "does not exist either") {
		t.Errorf("missing parent hint: %+v", e)
	}
}

func TestWriteFileExclusiveNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.trashinfo")
	if err := WriteFileExclusive(p, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteFileExclusive(p, []byte("second"), 0o600)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: got %v, want fs.ErrExist", err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "first" {
		t.Errorf("content = %q, want the first writer's", data)
	}
	info, _ := os.Stat(p)
	if want := os.FileMode(0o600) &^ umask(); info.Mode().Perm() != want {
		t.Errorf("mode = %v, want %v", info.Mode().Perm(), want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	// The O_EXCL fallback keeps the same promise.
	q := filepath.Join(dir, "b")
	if err := writeExcl(q, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeExcl(q, []byte("y"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writeExcl over an existing file: got %v, want fs.ErrExist", err)
	}
}

func TestWriteFileExclusiveRacers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "name")
	const n = 8
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() { errs <- WriteFileExclusive(p, []byte("data"), 0o644) }()
	}
	won := 0
	for i := 0; i < n; i++ {
		err := <-errs
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers won the name, want exactly 1", won)
	}
}

func TestWriteFileFirstFreeWritesOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "a_1"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("taken"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"a", "a_1", "a_2", "a_3"}
	i := 0
	got, err := WriteFileFirstFree(dir, []byte("mine"), 0o600, func() (string, bool) {
		i++
		return names[i-1], i <= len(names)
	})
	if err != nil || got != "a_2" {
		t.Fatalf("got %q, %v; want a_2", got, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a_2")); string(data) != "mine" {
		t.Errorf("a_2 = %q", data)
	}
	for _, n := range []string{"a", "a_1"} {
		if data, _ := os.ReadFile(filepath.Join(dir, n)); string(data) != "taken" {
			t.Errorf("%s was replaced: %q", n, data)
		}
	}
	_, err = WriteFileFirstFree(dir, nil, 0o600, func() (string, bool) { return "a", false })
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("no names left: %v, want fs.ErrExist", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestWriteFileAtomicWritesThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "target.txt")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real/target.txt", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "chain.txt")
	os.Symlink(link, chain)
	if err := WriteFileAtomic(chain, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, chain} {
		if info, _ := os.Lstat(p); info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced by a regular file", p)
		}
	}
	if data, _ := os.ReadFile(real); string(data) != "new" {
		t.Errorf("target = %q, want new", data)
	}
	if info, _ := os.Stat(real); info.Mode().Perm() != 0o600 {
		t.Errorf("target mode = %v, want 0600 kept", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "real"))
	if len(entries) != 1 {
		t.Errorf("temp files left next to the target: %v", entries)
	}

	// A dangling link is written the way `echo new > link` would: its
	// target is created.
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink("real/made.txt", dangling)
	if err := WriteFileAtomic(dangling, []byte("made"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "real", "made.txt")); string(data) != "made" {
		t.Errorf("dangling target = %q", data)
	}

	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteFileAtomic(loop, []byte("x"), 0o644); err == nil {
		t.Error("a symlink loop was written")
	}
}

func TestResolveLinkClimbsOutOfTheRealFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "x.txt"), nil, 0o644)
	// dir/link -> a/b, and dir/link/up -> ../x.txt means dir/a/x.txt,
	// not dir/x.txt as a lexical join would say.
	os.Symlink("a/b", filepath.Join(dir, "link"))
	os.Symlink("../x.txt", filepath.Join(dir, "a", "b", "up"))
	got, err := ResolveLink(filepath.Join(dir, "link", "up"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, "a", "x.txt"))
	if got != want {
		t.Errorf("ResolveLink = %s, want %s", got, want)
	}
}

func TestCreateFileAtomicNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := CreateFileAtomic(p, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CreateFileAtomic(p, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("second create: %v, want ErrExist", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "first" {
		t.Errorf("content = %q, want first", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestWriteAtomicFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := WriteAtomic(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("content = %q, want old", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 1<<20 - 1: "1024.0 KiB",
		256 << 20: "256.0 MiB", 3 << 30: "3.0 GiB", 5 << 40: "5.0 TiB", 1 << 62: "4096.0 PiB",
	} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/a.txt":   "/tmp/a.txt",
		"a b":          "'a b'",
		"it's":         `'it'\''s'`,
		"":             "''",
		"x=1,y%2":      "x=1,y%2",
		"$HOME/*.go":   "'$HOME/*.go'",
		"line\nbreak":  "'line\nbreak'",
		"-dash":        "-dash",
		"tool@v1+meta": "tool@v1+meta",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNotFoundNamesADanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "cfg.yaml")
	if err := os.Symlink("gone/cfg.yaml", link); err != nil {
		t.Fatal(err)
	}
	e := NotFound("cfg.yaml", link)
	if !strings.Contains(e.Message, "symlink to gone/cfg.yaml, which does not exist") || strings.Contains(e.Hint, "did you mean") {
		t.Errorf("dangling link: %+v", e)
	}
}
