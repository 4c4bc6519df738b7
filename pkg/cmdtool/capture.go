package cmdtool

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// Output limits, quoted in docs/agent-state.md.
const (
	// MaxKeptBytes of stdout are held in memory, enough to parse a JSON
	// answer; beyond it the stream goes to a spool file.
	MaxKeptBytes = 1 << 20
	// MaxSpoolBytes bounds the spool file; the rest is counted, not kept.
	MaxSpoolBytes = 256 << 20
	// OutputBytes is the most of stdout shown in output: a head and a
	// tail around a marker when the stream is longer.
	OutputBytes = 24 << 10
	// StderrTailBytes is how much of stderr's end a result keeps.
	StderrTailBytes = 4 << 10
)

// stream reads one pipe with memory bounded whatever the volume: the
// first MaxKeptBytes, a tail ring, and the whole (up to MaxSpoolBytes)
// in a spool file once it outgrows memory.
type stream struct {
	keep      int
	tailSize  int
	spoolDir  string
	spoolName string

	mu        sync.Mutex
	head      []byte
	tail      []byte // the last tailSize bytes, in order
	total     int64
	spool     *os.File
	spoolPath string
	spooled   int64
	spoolErr  error
	done      chan struct{}
}

func newStream(keep, tailSize int, spoolDir, spoolName string) *stream {
	return &stream{keep: keep, tailSize: tailSize, spoolDir: spoolDir, spoolName: spoolName, done: make(chan struct{})}
}

// drain reads r to its end (every writer closed it).
func (s *stream) drain(r io.ReadCloser) {
	defer close(s.done)
	defer r.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.add(buf[:n])
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spool != nil {
		if err := s.spool.Close(); err != nil && s.spoolErr == nil {
			s.spoolErr = err
		}
		s.spool = nil
	}
}

func (s *stream) add(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	if len(s.head) < s.keep {
		n := min(len(p), s.keep-len(s.head))
		s.head = append(s.head, p[:n]...)
		if n < len(p) {
			s.startSpool()
			s.write(s.head)
			s.write(p[n:])
		}
	} else {
		if s.spool == nil && s.spooled == 0 {
			s.startSpool()
			s.write(s.head)
		}
		s.write(p)
	}
	s.tail = append(s.tail, p...)
	if over := len(s.tail) - s.tailSize; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
}

func (s *stream) startSpool() {
	if s.spoolDir == "" || s.spool != nil || s.spoolErr != nil {
		return
	}
	if err := os.MkdirAll(s.spoolDir, 0o755); err != nil {
		s.spoolErr = err
		return
	}
	path, err := fsutil.CreateUnique(s.spoolDir, s.spoolName+"-", ".txt", nil)
	if err == nil {
		s.spool, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	}
	if err != nil {
		s.spoolErr = err
		return
	}
	s.spoolPath = path
}

func (s *stream) write(p []byte) {
	if s.spool == nil {
		return
	}
	room := MaxSpoolBytes - s.spooled
	if room <= 0 {
		return
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := s.spool.Write(p)
	s.spooled += int64(n)
	if err != nil && s.spoolErr == nil {
		s.spoolErr = err
	}
}

// complete says whether every byte is in memory.
func (s *stream) complete() bool { return s.total <= int64(len(s.head)) }

// shown is the stream as output shows it: whole when it fits, else a head
// and a tail around a marker that says what was left out and where the
// whole is.
func (s *stream) shown(limit int) (text string, truncated bool) {
	if s.total <= int64(limit) && s.complete() {
		return validText(s.head), false
	}
	headN := limit * 45 / 100
	tailN := min(limit-headN, len(s.tail))
	head := trimRuneEnd(s.head[:min(headN, len(s.head))])
	tail := trimRuneStart(s.tail[len(s.tail)-tailN:])
	omitted := s.total - int64(len(head)) - int64(len(tail))
	where := "the rest was not kept"
	if s.spoolPath != "" {
		where = "the whole output is in " + s.spoolPath
		if s.spooled < s.total {
			where += fmt.Sprintf(" (its first %s)", fsutil.HumanBytes(s.spooled))
		}
	}
	marker := fmt.Sprintf("\n… %s omitted of %s; %s …\n", fsutil.HumanBytes(omitted), fsutil.HumanBytes(s.total), where)
	return validText(head) + marker + validText(tail), true
}

// tailText is the stream's end, whole lines first when it was cut.
func (s *stream) tailText() string {
	t := trimRuneStart(s.tail)
	if int64(len(t)) < s.total {
		return "…" + validText(t)
	}
	return validText(t)
}

func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b)))
}

func trimRuneEnd(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

func trimRuneStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeRune(b); r != utf8.RuneError || size != 1 {
			return b
		}
		b = b[1:]
	}
	return b
}

// spoolDir is where spilled output goes: beside the output budget's
// archives.
func spoolDir(dataDir string) string { return filepath.Join(dataDir, budget.DirName) }
