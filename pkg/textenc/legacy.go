package textenc

import (
	"bytes"
	"cmp"
	"unicode/utf8"
)

// DecodeLegacy decodes a line that is not valid UTF-8 the way read shows
// it: in the file's single-byte encoding (Latin-1 or Windows-1252), or as
// Windows-1252 when the file is otherwise UTF-8 ("" for singleByte).
// Every byte decodes to one character, so the text never holds U+FFFD
// for a stray byte.
func DecodeLegacy(line []byte, singleByte Encoding) string {
	s, err := Decode(line, cmp.Or(singleByte, Windows1252))
	if err != nil {
		return string(bytes.ToValidUTF8(line, []byte("\uFFFD")))
	}
	return s
}

// LinesToUTF8 is data with each line that is not valid UTF-8 decoded by
// DecodeLegacy and the others kept, so that text is searched as read
// shows it; data itself when it is valid UTF-8. Line breaks stay where
// they are, so line numbers do not change.
func LinesToUTF8(data []byte, singleByte Encoding) []byte {
	if utf8.Valid(data) {
		return data
	}
	out := make([]byte, 0, len(data)+len(data)/4)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i+1]
		}
		if utf8.Valid(line) {
			out = append(out, line...)
		} else {
			out = append(out, DecodeLegacy(line, singleByte)...)
		}
		data = data[len(line):]
	}
	return out
}
