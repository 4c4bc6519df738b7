// Package textenc tells text from binary and names, decodes and re-encodes
// a file's text encoding (BOMs, UTF-16, single-byte) and line endings, so
// read shows files honestly and write and edit put back what was there.
package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding names a text encoding as read and edit report it.
type Encoding string

const (
	UTF8        Encoding = "utf-8"
	UTF8BOM     Encoding = "utf-8-bom"
	UTF16LE     Encoding = "utf-16le"
	UTF16BE     Encoding = "utf-16be"
	Latin1      Encoding = "latin-1"
	Windows1252 Encoding = "windows-1252"
)

// SniffLen is how much of a file Detect needs to look at.
const SniffLen = 8192

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// ErrBinary means the bytes are not text in any encoding we decode.
var ErrBinary = errors.New("binary data")

// Detect names the encoding of a file from its first bytes (up to
// SniffLen; pass the whole file when you have it). It returns ErrBinary
// for data with NUL bytes or control bytes that no text has. A block cut
// in the middle of a UTF-8 sequence is still UTF-8.
func Detect(head []byte) (Encoding, error) {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return UTF8BOM, nil
	case bytes.HasPrefix(head, bomUTF16LE):
		return UTF16LE, nil
	case bytes.HasPrefix(head, bomUTF16BE):
		return UTF16BE, nil
	}
	if LooksBinary(head) {
		return "", ErrBinary
	}
	if validUTF8Prefix(head) {
		return UTF8, nil
	}
	// Not UTF-8: a single-byte encoding. Bytes 0x80–0x9F are C1 controls
	// in Latin-1 but letters and quotes in Windows-1252.
	for _, b := range head {
		if b >= 0x80 && b <= 0x9F {
			if b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D {
				return "", ErrBinary // undefined in Windows-1252 too
			}
			return Windows1252, nil
		}
	}
	return Latin1, nil
}

// LooksBinary reports whether a block holds a NUL byte or many control
// bytes that text files do not contain (as git and ripgrep judge).
func LooksBinary(block []byte) bool {
	if bytes.IndexByte(block, 0) >= 0 {
		return true
	}
	controls := 0
	for _, b := range block {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' && b != '\v' && b != 0x1b && b != 0x08 {
			controls++
		}
	}
	return controls > 0 && controls*100 > len(block) // more than 1%
}

// validUTF8Prefix accepts a block whose only flaw is a sequence cut at the end.
func validUTF8Prefix(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return utf8.Valid(b[:i]) && !utf8.FullRune(b[i:])
		}
	}
	return false
}

func codec(enc Encoding) (encoding.Encoding, error) {
	switch enc {
	case UTF8:
		return encoding.Nop, nil
	case UTF8BOM:
		return unicode.UTF8BOM, nil
	case UTF16LE:
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), nil
	case UTF16BE:
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), nil
	case Latin1:
		return charmap.ISO8859_1, nil
	case Windows1252:
		return charmap.Windows1252, nil
	}
	return nil, fmt.Errorf("unknown encoding %q", enc)
}

// Decode turns bytes in enc into UTF-8 text, without the BOM.
func Decode(data []byte, enc Encoding) (string, error) {
	c, err := codec(enc)
	if err != nil {
		return "", err
	}
	out, err := c.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("decoding %s: %w", enc, err)
	}
	return string(out), nil
}

// NewReader decodes a stream in enc to UTF-8 as it is read, without the
// BOM, so that a large file need not be held in memory to be decoded.
func NewReader(r io.Reader, enc Encoding) (io.Reader, error) {
	if enc == UTF8 {
		return r, nil
	}
	c, err := codec(enc)
	if err != nil {
		return nil, err
	}
	return transform.NewReader(r, c.NewDecoder()), nil
}

// Encode turns UTF-8 text into bytes in enc, with the BOM that enc
// carries. A character enc cannot hold is an error, never a '?'.
func Encode(text string, enc Encoding) ([]byte, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("text is not valid UTF-8")
	}
	c, err := codec(enc)
	if err != nil {
		return nil, err
	}
	if enc == UTF8 {
		return []byte(text), nil
	}
	out, err := c.NewEncoder().Bytes([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the text has characters that %s cannot hold: %w", enc, err)
	}
	return out, nil
}

// LineEnding names a text's line endings.
type LineEnding string

const (
	LF    LineEnding = "lf"
	CRLF  LineEnding = "crlf"
	Mixed LineEnding = "mixed"
	None  LineEnding = "none" // no line break at all
)

// LineEndings counts LF and CRLF breaks and names the style.
func LineEndings(text []byte) LineEnding {
	lf := bytes.Count(text, []byte{'\n'})
	crlf := bytes.Count(text, []byte("\r\n"))
	switch {
	case lf == 0:
		return None
	case crlf == 0:
		return LF
	case crlf == lf:
		return CRLF
	}
	return Mixed
}
