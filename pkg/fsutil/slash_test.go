package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestCheckFolderSuffix(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(file)
	di, _ := os.Stat(dir)
	for _, c := range []struct {
		p      string
		info   fs.FileInfo
		create bool
		want   tool.Code
	}{
		{"f.txt", fi, false, ""},
		{"f.txt/", fi, false, tool.CodeNotADirectory},
		{"f.txt/.", fi, true, tool.CodeNotADirectory},
		{"d/", di, true, ""},
		{"new/", nil, false, ""},
		{"new/", nil, true, tool.CodeIsDirectory},
		{"new", nil, true, ""},
	} {
		err := CheckFolderSuffix(c.p, c.info, c.create)
		var got tool.Code
		if te := tool.AsError(err); te != nil {
			got = te.Code
		}
		if got != c.want || (err != nil) != (c.want != "") {
			t.Errorf("%q (file %v, create %v): got %v, want %q", c.p, c.info != nil, c.create, err, c.want)
		}
	}
}

func TestOctalMode(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0o644: "0644", 0o755 | fs.ModeSetuid: "4755", 0o755 | fs.ModeSetgid: "2755",
		0o777 | fs.ModeSticky: "1777", 0o755 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky: "7755",
		0o600 | fs.ModeDir: "0600",
	} {
		if got := OctalMode(m); got != want {
			t.Errorf("OctalMode(%v) = %s, want %s", m, got, want)
		}
	}
}
