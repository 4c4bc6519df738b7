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

// TestWriteFileAtomicKeepsSpecialModeBits: the setuid, setgid and sticky
// bits survive a replacement, also when the owner is given back (a chown
// clears setuid and setgid, so it must come before the chmod).
func TestWriteFileAtomicKeepsSpecialModeBits(t *testing.T) {
	const special = 0o755 | os.ModeSetuid | os.ModeSetgid | os.ModeSticky
	p := filepath.Join(t.TempDir(), "tool.sh")
	os.WriteFile(p, []byte("old"), 0o755)
	chown := os.Geteuid() == 0 && os.Chown(p, 65534, 65534) == nil
	if err := os.Chmod(p, special); err != nil {
		t.Skipf("chmod: %v", err)
	}
	if err := WriteFileAtomic(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if got := info.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky); got != special {
		t.Errorf("mode = %v, want %v (owner given back: %v)", got, os.FileMode(special), chown)
	}
}
