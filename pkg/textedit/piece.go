package textedit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Piece replaces orig[start:end] with text. Pieces are kept sorted and
// disjoint, in the coordinates of the original text, so that the bytes
// between them are provably the original ones.
type Piece struct {
	Start, End int
	Text       []byte
	Edit       int
}

// Render builds the text that pieces make of orig.
func Render(orig []byte, pieces []Piece) []byte {
	n := len(orig)
	for _, p := range pieces {
		n += len(p.Text) - (p.End - p.Start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, p := range pieces {
		out = append(out, orig[last:p.Start]...)
		out = append(out, p.Text...)
		last = p.End
	}
	return append(out, orig[last:]...)
}

// LineAt is the 1-based line of offset off.
func LineAt(text []byte, off int) int {
	return 1 + bytes.Count(text[:off], []byte("\n"))
}

// LineNumbers returns the first line of each span (of the first
// MaxReportedLines), counting once.
func LineNumbers(text []byte, spans []Span) []int {
	spans = spans[:min(len(spans), MaxReportedLines)]
	out := make([]int, 0, len(spans))
	line, off := 1, 0
	for _, s := range spans {
		line += bytes.Count(text[off:s.Start], []byte("\n"))
		off = s.Start
		out = append(out, line)
	}
	return out
}

// maxListedLines caps how many line numbers a message lists.
const maxListedLines = 20

// MaxReportedLines caps the line numbers a result lists (the counts stay
// exact).
const MaxReportedLines = 1000

// LinesPhrase renders "lines 12, 40, 88" for total spans whose first
// lines are lines (at most maxListedLines of them are named).
func LinesPhrase(lines []int, total int) string {
	var b strings.Builder
	b.WriteString("line")
	if total > 1 {
		b.WriteString("s")
	}
	for i, l := range lines {
		if i == maxListedLines {
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", l)
	}
	if shown := min(len(lines), maxListedLines); total > shown {
		fmt.Fprintf(&b, " and %d more", total-shown)
	}
	return b.String()
}

func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteEdited writes the edited file: the original bytes between the
// pieces, never re-encoded, so nothing outside a replaced span changes.
// Only UTF-16 text is encoded again as a whole (it was checked to
// round-trip byte for byte when it was read).
func WriteEdited(dst io.Writer, c *Content, pieces []Piece) error {
	if c.Enc == textenc.UTF16LE || c.Enc == textenc.UTF16BE || c.Reencode {
		out, err := textenc.Encode(string(Render(c.Text, pieces)), c.Enc)
		if err != nil {
			return &tool.Error{Code: tool.CodeEncoding, Message: err.Error(), Hint: "nothing was written"}
		}
		_, err = dst.Write(out)
		return err
	}
	// Many small pieces (a replace_all) must not cost a write call each;
	// a buffer in memory is one already (a patch renders every file into
	// one, and 64 KiB more per file was most of what it allocated).
	var w interface {
		io.Writer
		Flush() error
	}
	if b, ok := dst.(*bytes.Buffer); ok {
		w = memWriter{b}
	} else {
		w = bufio.NewWriterSize(dst, 64<<10)
	}
	if len(c.BOM) > 0 {
		if _, err := w.Write(c.BOM); err != nil {
			return err
		}
	}
	last := 0
	for _, p := range pieces {
		if _, err := w.Write(c.Text[last:p.Start]); err != nil {
			return err
		}
		if _, err := w.Write(p.Text); err != nil {
			return err
		}
		last = p.End
	}
	if _, err := w.Write(c.Text[last:]); err != nil {
		return err
	}
	return w.Flush()
}

// memWriter is a bytes.Buffer with nothing to flush.
type memWriter struct{ *bytes.Buffer }

func (memWriter) Flush() error { return nil }
