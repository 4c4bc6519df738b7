package textenc

import (
	"strings"
	"unicode/utf8"
)

// CleanTerminal makes captured terminal output readable for a model: ANSI
// escape sequences are removed, each line keeps only its last carriage
// return frame (a progress bar's final state), backspaces erase, other
// control characters are dropped and invalid UTF-8 is replaced. CRLF line
// ends become LF. The spool file keeps the raw bytes.
func CleanTerminal(b []byte) string {
	var out strings.Builder
	out.Grow(len(b))
	line := make([]byte, 0, 256)
	var frame []byte // the last non-empty frame before a \r on this line
	flush := func() {
		if len(line) == 0 && len(frame) > 0 {
			out.Write(frame)
		} else {
			out.Write(line)
		}
		line, frame = line[:0], frame[:0]
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\n':
			flush()
			out.WriteByte('\n')
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				continue // CRLF: the \n ends the line
			}
			if len(line) > 0 {
				frame = append(frame[:0], line...)
			}
			line = line[:0]
		case c == 0x1b:
			i = skipEscape(b, i) - 1
		case c == '\b':
			if len(line) > 0 {
				_, size := utf8.DecodeLastRune(line)
				line = line[:len(line)-size]
			}
		case c == '\t':
			line = append(line, c)
		case c < 0x20 || c == 0x7f:
			// other control characters carry no text
		default:
			line = append(line, c)
		}
	}
	flush()
	return strings.ToValidUTF8(out.String(), "\uFFFD")
}

// skipEscape returns the index just past the escape sequence that starts
// with ESC at b[i]: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), the
// string sequences DCS, SOS, PM and APC (… ST), and the short forms
// (ESC, intermediates, final). A sequence cut off by the end of b is
// dropped whole; a string sequence left open ends at the line's end.
func skipEscape(b []byte, i int) int {
	j := i + 1
	if j >= len(b) {
		return j
	}
	switch b[j] {
	case '[':
		for j++; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return j + 1
			}
			if b[j] < 0x20 || b[j] > 0x7e {
				return j // malformed: stop before the stray byte
			}
		}
		return j
	case ']', 'P', 'X', '^', '_':
		for j++; j < len(b); j++ {
			if b[j] == 0x07 && b[i+1] == ']' {
				return j + 1
			}
			if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				return j + 2
			}
			if b[j] == '\n' {
				return j // never terminated: it may not eat the lines after it
			}
		}
		return j
	}
	for ; j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f; j++ {
	}
	if j < len(b) && b[j] >= 0x30 && b[j] <= 0x7e {
		return j + 1
	}
	return j
}
