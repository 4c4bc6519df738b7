package exec

import (
	"bytes"
	"os"
	"sync"
	"time"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

const (
	// readBufferSize is how much one read takes from the output pipe.
	readBufferSize = 256 << 10
	// pipeBufferSize is the output pipe's buffer (Linux F_SETPIPE_SZ; the
	// default unprivileged maximum).
	pipeBufferSize = 1 << 20
)

// capture reads a command's combined stdout and stderr from one pipe, so
// both arrive in the order they were written, with memory bounded whatever
// the volume: the first OutputCap bytes, a ring of the last OutputCap
// bytes, and counts of the whole stream. Everything up to spoolCap goes
// to the spool file as raw bytes.
type capture struct {
	r        *os.File
	spool    *os.File // nil once spooling stopped
	spoolCap int64
	done     chan struct{}

	mu         sync.Mutex
	head       []byte
	ring       []byte
	ringEnd    int // where the next byte goes in ring
	ringFull   bool
	bytes      int64
	lines      int64
	spoolBytes int64
	spoolErr   error
}

func newCapture(r, spool *os.File, spoolCap int64) *capture {
	return &capture{
		r: r, spool: spool, spoolCap: spoolCap, done: make(chan struct{}),
		head: make([]byte, 0, OutputCap), ring: make([]byte, OutputCap),
	}
}

// run reads until every writer has closed the pipe or a read deadline
// stops it.
func (c *capture) run() {
	defer close(c.done)
	buf := make([]byte, readBufferSize)
	for {
		n, err := c.r.Read(buf)
		if n > 0 {
			c.add(buf[:n])
		}
		if err != nil {
			break
		}
	}
	c.r.Close()
	c.mu.Lock()
	if c.spool != nil {
		if err := c.spool.Close(); err != nil && c.spoolErr == nil {
			c.spoolErr = err
		}
		c.spool = nil
	}
	c.mu.Unlock()
}

func (c *capture) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytes += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if len(c.head) < OutputCap {
		c.head = append(c.head, p[:min(len(p), OutputCap-len(c.head))]...)
	}
	c.addRing(p)
	if c.spool != nil {
		chunk := p[:min(int64(len(p)), c.spoolCap-c.spoolBytes)]
		n, err := c.spool.Write(chunk)
		c.spoolBytes += int64(n)
		if err != nil {
			c.spoolErr = err
		}
		if err != nil || c.spoolBytes >= c.spoolCap {
			c.spool.Close()
			c.spool = nil
		}
	}
}

func (c *capture) addRing(p []byte) {
	if len(p) >= len(c.ring) {
		copy(c.ring, p[len(p)-len(c.ring):])
		c.ringEnd, c.ringFull = 0, true
		return
	}
	n := copy(c.ring[c.ringEnd:], p)
	if n < len(p) {
		copy(c.ring, p[n:])
		c.ringFull = true
	}
	c.ringEnd = (c.ringEnd + len(p)) % len(c.ring)
	if c.ringEnd == 0 {
		c.ringFull = true
	}
}

// finish stops reading once the pipe has been quiet for drain after the
// command's processes are gone (a writer outside the tree could hold it
// open forever), and waits for the reader.
func (c *capture) finish(drain time.Duration) {
	select {
	case <-c.done:
		return
	case <-time.After(drain):
	}
	_ = c.r.SetReadDeadline(time.Now())
	<-c.done
}

// settle waits, at most limit, for the capture to take in what is already
// in the pipe: when the main process exits its last output may still be on
// its way. Leftovers that keep writing end the wait at limit.
func (c *capture) settle(limit time.Duration) {
	last := int64(-1)
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		select {
		case <-c.done:
			return
		default:
		}
		c.mu.Lock()
		n := c.bytes
		c.mu.Unlock()
		if n == last && proctree.PipeUnread(c.r) == 0 {
			return // nothing waiting, and nothing taken in since the last look
		}
		last = n
	}
}

// stats is the capture's state as stored in an exit record: counts, and
// the tail when the spool did not keep the end of the stream.
func (c *capture) stats() outputStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := outputStats{Bytes: c.bytes, Lines: c.lines, SpoolBytes: c.spoolBytes}
	if c.spoolErr != nil {
		s.SpoolError = c.spoolErr.Error()
	}
	if c.spoolBytes < c.bytes {
		s.Tail = c.tailLocked()
	}
	return s
}

func (c *capture) tailLocked() []byte {
	if !c.ringFull {
		return bytes.Clone(c.ring[:c.ringEnd])
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.ringEnd:]...)
	return append(out, c.ring[:c.ringEnd]...)
}

// outputStats are the counts of a command's whole output.
type outputStats struct {
	Bytes      int64  `json:"bytes"`
	Lines      int64  `json:"lines"`
	SpoolBytes int64  `json:"spool_bytes"`
	SpoolError string `json:"spool_error,omitempty"`
	// Tail is the end of the output when the spool file stopped before it.
	Tail []byte `json:"tail,omitempty"`
}
