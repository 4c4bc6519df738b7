package exec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// cursorFile keeps where the last task_output read of a task ended, so
// that the next read without an offset returns only what is new (Claude
// Code's BashOutput). It lives with the task and goes with it.
const cursorFile = "read_cursor"

// readFromCursor runs read from the task's cursor and moves the cursor to
// where read ended. Readers in other processes wait on a lock, so that two
// of them never both get the same new output; the cursor itself is
// replaced atomically, never seen half written.
func (t *task) readFromCursor(read func(from int64) (next int64)) error {
	lock := flock.New(filepath.Join(t.dir, cursorFile+".lock"))
	if err := lock.Lock(); err != nil {
		return err
	}
	defer lock.Close() // closing releases the lock
	from := t.cursor()
	if next := read(from); next != from {
		return t.setCursor(next)
	}
	return nil
}

// cursor is where the last read ended: 0 before the first.
func (t *task) cursor() int64 {
	b, err := os.ReadFile(filepath.Join(t.dir, cursorFile))
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func (t *task) setCursor(n int64) error {
	return fsutil.WriteFileAtomicNoSync(filepath.Join(t.dir, cursorFile), []byte(strconv.FormatInt(n, 10)+"\n"), 0o600)
}

// moveCursor sets the cursor after a read from an offset or of all the
// output, under the same lock.
func (t *task) moveCursor(n int64) error {
	return t.readFromCursor(func(int64) int64 { return n })
}
