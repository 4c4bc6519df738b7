//go:build unix

package read

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// FIFOs and sockets are refused by the stat, at once: a read would block.
func TestReadRefusesFIFOAndSocket(t *testing.T) {
	env := testEnv(t)
	fifo := filepath.Join(env.Root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	te := readErr(t, env, Params{Path: "pipe"}, tool.CodeSpecialFile)
	if !strings.Contains(te.Message, "FIFO") {
		t.Errorf("FIFO message %q", te.Message)
	}
	// Unix socket paths are short; use a short temp dir.
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	te = readErr(t, env, Params{Path: filepath.Join(dir, "s")}, tool.CodeSpecialFile)
	if !strings.Contains(te.Message, "socket") {
		t.Errorf("socket message %q", te.Message)
	}
}

// A path that was regular at the stat and is a FIFO at the open is caught
// on the opened descriptor, without blocking.
func TestOpenRegularRechecks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openRegular("p", fifo)
	if err == nil {
		f.Close()
		t.Fatal("openRegular opened a FIFO")
	}
	if te := tool.AsError(err); te.Code != tool.CodeSpecialFile {
		t.Errorf("code %s", te.Code)
	}
}
