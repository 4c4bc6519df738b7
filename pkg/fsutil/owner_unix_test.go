//go:build unix

package fsutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileAtomicKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another owner")
	}
	p := filepath.Join(t.TempDir(), "owned.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Skipf("chown: %v", err)
	}
	if err := WriteFileAtomic(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if st := info.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
		t.Errorf("owner = %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
}
