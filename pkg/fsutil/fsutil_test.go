package fsutil

import (
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
