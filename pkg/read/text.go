package read

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/textenc"
)

// pageRequest is what a text page asks of the scanner.
type pageRequest struct {
	offset int // first line, 1-based
	limit  int // lines at most
	// size is the file's size from stat (0 for /proc files that have no
	// size); fullScan says to read to the end whatever happens.
	size     int64
	fullScan bool
	// rawScanned reports the file bytes consumed when r decodes them
	// (UTF-16); nil when r reads the file itself.
	rawScanned func() int64
	// singleByte is the file's encoding when it is Latin-1 or
	// Windows-1252; "" when its lines are UTF-8.
	singleByte textenc.Encoding
	// skip is how many characters of the first line (offset) to leave
	// out: read's column - 1.
	skip int
}

// textPage is one page of numbered lines and what the scan learned.
type textPage struct {
	output     []byte
	start, end int // lines shown; end < start when none
	total      int // lines in the file, or at least this many when !totalExact
	totalExact bool
	// outputCapped says the page stopped at MaxOutputBytes before limit.
	outputCapped bool
	lf, crlf     int   // line breaks seen
	scanned      int64 // bytes read
	cutLines     []int // lines cut at MaxLineChars
	// oddLines are the shown lines not in the file's encoding: in a UTF-8
	// file those that are not valid UTF-8 (shown decoded as Windows-1252),
	// in a single-byte file those that are UTF-8 (shown as such).
	oddLines []int
	// firstLineChars counts the characters of the first line, for a
	// column past its end; skipped those left out of it.
	firstLineChars, skipped int
}

// lineEnding names the breaks seen.
func (p *textPage) lineEnding() textenc.LineEnding {
	switch {
	case p.lf == 0:
		return textenc.None
	case p.crlf == 0:
		return textenc.LF
	case p.crlf == p.lf:
		return textenc.CRLF
	}
	return textenc.Mixed
}

// scanBufSize is the read size of the scanner: large, so that a deep page
// of a huge file costs few system calls, and fixed, so memory stays
// bounded whatever the file.
const scanBufSize = 1 << 20

// keepLineBytes is how much of one line the scanner keeps: enough for
// MaxLineChars characters of four bytes each. The rest is only counted.
const keepLineBytes = MaxLineChars*utf8.UTFMax + utf8.UTFMax

// scanPage streams r (UTF-8 or single-byte text, each line shown in the
// encoding it is valid in, see lineText) to the requested page, numbers
// its lines like cat -n, and goes on counting lines to the end when that
// is cheap: always under fullScan, else when what is left is no more than
// what was read already, so that a page near the start of a huge file
// does not cost a full pass.
func scanPage(ctx context.Context, r io.Reader, req pageRequest) (*textPage, error) {
	p := &textPage{start: req.offset, end: req.offset - 1}
	bufLen := scanBufSize
	if req.fullScan && req.size > 0 && req.size < int64(bufLen) {
		bufLen = int(req.size) + 1 // one more byte, so the first read can see EOF
	}
	buf := make([]byte, max(bufLen, 4096))

	const (
		skipping = iota
		collecting
		counting
	)
	state := skipping
	if req.offset <= 1 {
		state = collecting
	}
	ln := 1            // the line that starts at the scan position
	var line []byte    // the kept head of line ln
	var dropped int    // characters of line ln beyond the kept head
	var lineBytes bool // line ln has at least one byte
	var lastByte byte  // last byte of line ln so far
	var prevCR bool    // the previous chunk ended in '\r'
	var lastChunkByte byte = '\n'
	stoppedEarly := false

	skipLeft := req.skip
	finishLine := func() {
		if ln == req.offset {
			p.skipped = req.skip - skipLeft
			p.firstLineChars = p.skipped + utf8.RuneCount(line) + dropped
			if lastByte == '\r' {
				p.firstLineChars-- // the CR of a CRLF is no character
			}
		}
		shown, cut, odd := lineText(line, dropped, lastByte == '\r', req.singleByte)
		before := len(p.output)
		p.output = appendNumbered(p.output, ln, shown, cut)
		if len(p.output) > MaxOutputBytes && ln > req.offset {
			p.output = p.output[:before]
			p.outputCapped = true
			state = counting
			return
		}
		if cut > 0 {
			p.cutLines = append(p.cutLines, ln)
		}
		if odd {
			p.oddLines = append(p.oddLines, ln)
		}
		p.end = ln
		if p.end-p.start+1 >= req.limit {
			state = counting
		}
	}

	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		chunk := buf[:n]
		if n > 0 {
			p.scanned += int64(n)
			lfs := bytes.Count(chunk, newline)
			p.lf += lfs
			p.crlf += bytes.Count(chunk, crlf)
			if prevCR && chunk[0] == '\n' {
				p.crlf++
			}
			prevCR = chunk[n-1] == '\r'
			lastChunkByte = chunk[n-1]

			if state == skipping {
				// Skipping starts at a chunk's start, so the chunk's count
				// tells at once whether the page begins in it.
				if need := req.offset - ln; lfs < need {
					ln += lfs
					chunk = nil
				} else {
					for range need {
						chunk = chunk[bytes.IndexByte(chunk, '\n')+1:]
					}
					ln += need
					state = collecting
				}
			}
			for state == collecting && len(chunk) > 0 {
				i := bytes.IndexByte(chunk, '\n')
				seg := chunk
				if i >= 0 {
					seg = chunk[:i]
				}
				if len(seg) > 0 {
					lineBytes = true
					lastByte = seg[len(seg)-1]
					if skipLeft > 0 && ln == req.offset {
						k := skipChars(seg, skipLeft, req.singleByte != "")
						skipLeft -= countChars(seg[:k], req.singleByte != "")
						seg = seg[k:]
					}
					if req.skip > 0 && ln == req.offset && len(line) == 0 && req.singleByte == "" {
						// The last character skipped may go on in this chunk.
						for len(seg) > 0 && seg[0]&0xC0 == 0x80 {
							seg = seg[1:]
						}
					}
					if room := keepLineBytes - len(line); room > 0 {
						k := min(room, len(seg))
						line = append(line, seg[:k]...)
						seg = seg[k:]
					}
					if req.singleByte != "" {
						dropped += len(seg)
					} else {
						dropped += countRuneStarts(seg)
					}
				}
				if i < 0 {
					break
				}
				chunk = chunk[i+1:]
				finishLine()
				ln++
				line, dropped, lineBytes, lastByte = line[:0], 0, false, 0
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		read := p.scanned
		if req.rawScanned != nil {
			read = req.rawScanned()
		}
		if state == counting && !req.fullScan && req.size-read > read {
			stoppedEarly = true
			break
		}
	}
	if state == collecting && lineBytes {
		finishLine() // the last line has no newline
	}

	p.total = p.lf
	if p.scanned > 0 && lastChunkByte != '\n' {
		p.total++
	}
	p.totalExact = !stoppedEarly
	if stoppedEarly {
		p.total = p.lf + 1 // at least: bytes remain after the last break seen
	}
	return p, nil
}

var (
	newline = []byte{'\n'}
	crlf    = []byte{'\r', '\n'}
)

// skipChars returns how many bytes of b the first n characters take
// (all of b when it has fewer): a byte each in a single-byte file, else
// a UTF-8 sequence each, so that the cut never splits one.
func skipChars(b []byte, n int, singleByte bool) int {
	if singleByte {
		return min(n, len(b))
	}
	seen := 0
	for i, c := range b {
		if c&0xC0 != 0x80 {
			if seen == n {
				return i
			}
			seen++
		}
	}
	return len(b)
}

func countChars(b []byte, singleByte bool) int {
	if singleByte {
		return len(b)
	}
	return countRuneStarts(b)
}

// countRuneStarts counts the characters in b, which may begin or end in
// the middle of one: each UTF-8 sequence has exactly one non-continuation
// byte.
func countRuneStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// lineText decodes the kept head of a line and cuts it at MaxLineChars.
// dropped counts the characters past the head; crTerminated says the
// line ended in '\r' (a CRLF break), which is neither shown nor counted.
//
// Each line is shown in the encoding it is valid in, so that files that
// mix UTF-8 and a legacy encoding read right wherever their lines of
// either kind stand: a line that is valid UTF-8 is UTF-8, any other is
// decoded as singleByte (the file's Latin-1 or Windows-1252), or as
// Windows-1252 in a UTF-8 file. It returns the text, how many characters
// were cut, and whether the line is odd: not in the file's encoding.
func lineText(head []byte, dropped int, crTerminated bool, singleByte textenc.Encoding) (text string, cut int, odd bool) {
	if crTerminated {
		if dropped > 0 {
			dropped--
		} else {
			head = bytes.TrimSuffix(head, []byte{'\r'})
		}
	}
	// The head of a long line may end inside a character; count that one
	// as cut.
	whole := head
	if dropped > 0 {
		whole = trimCutRune(head)
	}
	var s string
	if utf8.Valid(whole) {
		dropped += countRuneStarts(head[len(whole):])
		s = string(whole)
		odd = singleByte != "" && utf8.RuneCount(whole) != len(whole)
	} else {
		s, _ = textenc.Decode(head, cmp.Or(singleByte, textenc.Windows1252))
		odd = singleByte == ""
	}
	chars := utf8.RuneCountInString(s)
	if chars <= MaxLineChars {
		return s, dropped, odd
	}
	n := 0
	for i := range s {
		if n == MaxLineChars {
			return s[:i], dropped + chars - MaxLineChars, odd
		}
		n++
	}
	return s, dropped, odd
}

// trimCutRune drops an incomplete UTF-8 sequence at the end of b.
func trimCutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// numberWidth is cat -n's: the line number right-aligned in six columns.
const numberWidth = 6

// LineArrow separates the number from the line, as in `%6d→line`. edit
// recognises this prefix when a model pastes numbered lines back.
const LineArrow = "→"

// appendNumbered appends "%6d→text\n", with a marker when the line was cut.
func appendNumbered(dst []byte, n int, text string, cut int) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(digits); i < numberWidth; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, digits...)
	dst = append(dst, LineArrow...)
	dst = append(dst, text...)
	if cut > 0 {
		dst = append(dst, cutMarkPrefix...)
		dst = strconv.AppendInt(dst, int64(cut), 10)
		dst = append(dst, cutMarkSuffix...)
	}
	return append(dst, '\n')
}

// A line cut at MaxLineChars ends with "… [N more characters]".
const (
	cutMarkPrefix = "… ["
	cutMarkSuffix = " more characters]"
)
