package exec

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textenc"
)

// outputView is what rendering needs of a command's output: its first and
// last bytes and the counts of the whole stream.
type outputView struct {
	Head       []byte // the first min(OutputCap, Bytes) bytes of the output
	Tail       []byte // the last min(OutputCap, Bytes) bytes of the output
	Bytes      int64  // everything the command wrote
	Lines      int64  // newlines in everything the command wrote
	SpoolBytes int64  // how much of it the spool file kept
	Path       string // the spool file
}

// noOutput is the text of a command that printed nothing.
const noOutput = "(no output)"

// renderOutput builds the text a model reads, at most limit bytes: the
// whole output when its clean text fits, else the first HeadPercent of
// limit from its start and the rest from its end, with a marker between
// that counts what was left out and names the file that has it. truncated
// says whether anything was left out.
func renderOutput(v outputView, limit int) (text string, truncated bool) {
	if v.Bytes == 0 {
		return noOutput, false
	}
	if int64(len(v.Head)) == v.Bytes {
		if text := textenc.CleanTerminal(v.Head); len(text) <= limit {
			return text, false
		}
	}
	headCap := limit * HeadPercent / 100
	h := v.Head[:min(len(v.Head), headCap)]
	if nl := bytes.LastIndexByte(h, '\n'); nl >= len(h)/2 {
		h = h[:nl+1] // end on a whole line when one is near
	} else {
		h = trimPartialRuneEnd(h)
	}
	head := textenc.CleanTerminal(h)
	if len(head) > headCap {
		h = fitStart(h, headCap)
		head = textenc.CleanTerminal(h)
	}
	// The marker's numbers can only shrink once the tail is chosen, so
	// one built from the totals bounds its length. The tail never reaches
	// back into the head.
	room := max(0, limit-len(head)-len(marker(v, v.Bytes, v.Lines)))
	n := min(int64(len(v.Tail)), int64(room), v.Bytes-int64(len(h)))
	t := v.Tail[len(v.Tail)-int(max(0, n)):]
	if nl := bytes.IndexByte(t, '\n'); nl >= 0 && nl < len(t)/2 {
		t = t[nl+1:] // start on a whole line when one is near
	} else {
		t = trimPartialRuneStart(t)
	}
	tail := textenc.CleanTerminal(t)
	if len(tail) > room {
		t = fitEnd(t, room)
		tail = textenc.CleanTerminal(t)
	}
	omittedBytes := v.Bytes - int64(len(h)) - int64(len(t))
	omittedLines := v.Lines - int64(bytes.Count(h, []byte{'\n'})) - int64(bytes.Count(t, []byte{'\n'}))
	// Only a spool that lost its head (a full disk) can make these negative.
	omittedBytes, omittedLines = max(0, omittedBytes), max(0, omittedLines)
	return head + marker(v, omittedBytes, omittedLines) + tail, true
}

// fitStart returns a start of b whose clean text fits in n bytes, and
// fitEnd an end of it. Clean text is mostly shorter than the bytes it
// comes from, but an invalid UTF-8 byte becomes a 3-byte U+FFFD, so the
// text of a binary or Latin-1 output can outgrow them. Cleaning is not
// monotonic (a \r frame may hide text), so the search keeps a length
// known to fit rather than the longest one.
func fitStart(b []byte, n int) []byte {
	return b[:fitLen(len(b), func(k int) bool { return len(textenc.CleanTerminal(b[:k])) <= n })]
}

func fitEnd(b []byte, n int) []byte {
	return b[len(b)-fitLen(len(b), func(k int) bool { return len(textenc.CleanTerminal(b[len(b)-k:])) <= n }):]
}

// fitLen bisects for a k in [0, size] with fits(k), given fits(0).
func fitLen(size int, fits func(int) bool) int {
	lo, hi := 0, size+1 // fits(lo); hi is out of reach or does not fit
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// marker is the line between head and tail.
func marker(v outputView, omittedBytes, omittedLines int64) string {
	where := "the full output is in " + v.Path
	if v.SpoolBytes < v.Bytes {
		where = fmt.Sprintf("%s keeps the first %s of it", v.Path, fsutil.HumanBytes(v.SpoolBytes))
	}
	return fmt.Sprintf("\n[… %d lines, %s omitted; %s …]\n", omittedLines, fsutil.HumanBytes(omittedBytes), where)
}

// trimPartialRuneEnd drops a UTF-8 sequence cut off at the end of b.
func trimPartialRuneEnd(b []byte) []byte {
	for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return b[:len(b)-k]
			}
			return b
		}
	}
	return b
}

// trimPartialRuneStart drops continuation bytes at the start of b.
func trimPartialRuneStart(b []byte) []byte {
	for k := 0; k < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
		b = b[1:]
	}
	return b
}
