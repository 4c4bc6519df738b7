package exec

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
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
// the volume: the last OutputCap bytes and counts of the whole stream
// (the spool keeps its start). Everything up to spoolCap goes to the spool
// file as raw bytes.
//
// Every byte is copied once out of the pipe, into buf, and stays there
// until later reads come round to it: buf is also the ring that keeps the
// tail, so a flood costs a read, a count of its newlines and (while the
// spool takes it) a write per chunk, and no other copy.
type capture struct {
	r        *os.File
	spool    *os.File // nil before it is made and once spooling stopped
	path     string   // the spool's
	spoolCap int64
	done     chan struct{}
	// buf is where reads land, at end; the OutputCap bytes before end
	// (round the ring) are the tail, which no read overwrites.
	buf []byte
	// reading is held over a read and the counting of its bytes (the
	// reader waits for data without it): settle, holding it, sees an empty
	// pipe only when every byte taken from the pipe is counted.
	reading sync.Mutex
	quit    atomic.Bool // finish stopped reading

	mu  sync.Mutex
	end int
	// lazy: the spool file is not made yet. It is made once the output
	// outgrows OutputCap, or when the run may outlive its caller
	// (materialize); until then the ring holds the whole output. Most
	// calls print little, and a file made and deleted per call costs the
	// file system more than many a command.
	lazy       bool
	ended      bool // the reader is done
	stopped    bool // finish gave up on a pipe held open: later reads do not count
	bytes      int64
	lines      int64
	spoolBytes int64
	spoolErr   error
}

const (
	// readWake is how often a reader waiting for output looks whether
	// finish stopped it.
	readWake = 100 * time.Millisecond
	// floodRead is a read large enough to say the command writes fast.
	floodRead = 8 << 10
	// floodPause is the wait after such a read: short beside a person's
	// patience, long enough for a fast writer to fill a good part of the
	// pipe (pipeBufferSize) without blocking on it.
	floodPause = 200 * time.Microsecond
)

// ringSize holds the largest read and the tail before it.
const ringSize = 4*readBufferSize + OutputCap

// newCapture reads r into the spool file at path: made at once, or later
// when lazy (see capture.lazy).
func newCapture(r *os.File, path string, spoolCap int64, lazy bool) (*capture, error) {
	c := &capture{
		r: r, path: path, spoolCap: spoolCap, done: make(chan struct{}),
		buf: make([]byte, ringSize), lazy: lazy,
	}
	if !lazy {
		spool, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("creating the output spool: %w", err)
		}
		c.spool = spool
	}
	return c, nil
}

// run reads until every writer has closed the pipe or a read deadline
// stops it.
func (c *capture) run() {
	defer close(c.done)
	for {
		// Only this goroutine moves end, so it reads it without the
		// lock; the bytes a read fills are in no tail.
		end := c.end
		room := c.buf[end:min(len(c.buf), end+readBufferSize)]
		ready, err := proctree.WaitReadable(c.r, readWake)
		if err != nil || c.quit.Load() {
			break
		}
		if !ready {
			continue
		}
		c.reading.Lock()
		n, err := c.r.Read(room)
		if n > 0 {
			c.add(end, n)
		}
		c.reading.Unlock()
		if err != nil {
			break
		}
		if n >= floodRead && n < len(room) {
			// The pipe is empty and the command writes fast: it would
			// wake this reader for every write it makes. A pause lets
			// the pipe fill, and the next read takes many writes at
			// once. (A full read leaves more to read at once.)
			proctree.Pause(floodPause)
		}
	}
	c.r.Close()
	c.mu.Lock()
	c.ended = true
	c.closeSpoolLocked()
	c.mu.Unlock()
}

func (c *capture) closeSpoolLocked() {
	if c.spool != nil {
		if err := c.spool.Close(); err != nil && c.spoolErr == nil {
			c.spoolErr = err
		}
		c.spool = nil
	}
}

// materialize makes the spool file now, with everything read so far.
func (c *capture) materialize() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lazy {
		c.materializeLocked(c.end)
		if c.ended {
			c.closeSpoolLocked()
		}
	}
}

// materializeLocked makes the spool file with the first upto bytes of the
// ring, which holds the whole output while the spool is lazy (it never
// wraps before the output outgrows OutputCap).
func (c *capture) materializeLocked(upto int) {
	c.lazy = false
	spool, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		c.spoolErr = fmt.Errorf("creating the output spool: %w", err)
		return
	}
	c.spool = spool
	c.spoolLocked(c.buf[:upto])
}

// spoolLocked writes p to the spool, up to its cap.
func (c *capture) spoolLocked(p []byte) {
	if c.spool == nil {
		return
	}
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

// add takes in the n bytes just read into buf at off.
func (c *capture) add(off, n int) {
	p := c.buf[off : off+n]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.bytes += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if c.end = off + n; c.end == len(c.buf) {
		c.end = 0
	}
	if c.lazy && c.bytes > OutputCap {
		c.materializeLocked(off)
	}
	c.spoolLocked(p)
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
	c.quit.Store(true) // the reader wakes every readWake to look
	if c.r.SetReadDeadline(time.Now()) == nil {
		<-c.done
		return
	}
	// A blocking pipe has no deadline: its reader is left to see quit
	// (the supervisor may exit first), and counts nothing more.
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
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
		c.reading.Lock()
		empty := proctree.PipeUnread(c.r) == 0
		c.reading.Unlock()
		c.mu.Lock()
		n := c.bytes
		c.mu.Unlock()
		if empty && n == last {
			return // nothing waiting, nothing being counted, nothing taken in since the last look
		}
		last = n
	}
}

// stats is the capture's state as stored in an exit record: counts, and
// the tail when the spool did not keep the end of the stream.
func (c *capture) stats() outputStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := outputStats{Bytes: c.bytes, Lines: c.lines, SpoolBytes: c.spoolBytes, Unspooled: c.lazy}
	if c.spoolErr != nil {
		s.SpoolError = c.spoolErr.Error()
	}
	if c.spoolBytes < c.bytes {
		s.Tail = c.tailLocked()
	}
	return s
}

func (c *capture) tailLocked() []byte {
	n := int(min(c.bytes, OutputCap))
	if n <= c.end {
		return bytes.Clone(c.buf[c.end-n : c.end])
	}
	out := make([]byte, 0, n)
	out = append(out, c.buf[len(c.buf)-(n-c.end):]...)
	return append(out, c.buf[:c.end]...)
}

// outputStats are the counts of a command's whole output.
type outputStats struct {
	Bytes      int64  `json:"bytes"`
	Lines      int64  `json:"lines"`
	SpoolBytes int64  `json:"spool_bytes"`
	SpoolError string `json:"spool_error,omitempty"`
	// Tail is the end of the output when the spool file stopped before it.
	Tail []byte `json:"tail,omitempty"`
	// Unspooled: no spool file was made, and Tail is the whole output.
	Unspooled bool `json:"unspooled,omitempty"`
}
