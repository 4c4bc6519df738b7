package pdftext

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"

	"github.com/ledongthuc/pdf"
)

// MaxDecryptBytes bounds a short-key RC4 file, which is decrypted in
// memory.
const MaxDecryptBytes = 64 << 20

// passwordPad is the padding string of the standard security handler
// (PDF 32000-1 §7.6.3.3, algorithm 2, step a).
var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

// shortRC4 says the file uses the standard handler's RC4 with a key of
// less than 128 bits, the case the library decrypts wrongly.
func shortRC4(enc pdf.Value) bool {
	if enc.Key("Filter").Name() != "Standard" {
		return false
	}
	v := enc.Key("V").Int64()
	length := int64(40)
	if l := enc.Key("Length"); l.Kind() == pdf.Integer {
		length = l.Int64()
	}
	return (v == 1 || v == 2) && length >= 40 && length < 128 && length%8 == 0
}

// fileKey computes the file key for the empty user password (algorithm
// 2). The library has already checked that password against /U.
func fileKey(trailer, enc pdf.Value) []byte {
	n := 5
	if l := enc.Key("Length"); l.Kind() == pdf.Integer {
		n = int(l.Int64() / 8)
	}
	h := md5.New()
	h.Write(passwordPad)
	h.Write([]byte(enc.Key("O").RawString()))
	h.Write(binary.LittleEndian.AppendUint32(nil, uint32(enc.Key("P").Int64())))
	h.Write([]byte(trailer.Key("ID").Index(0).RawString()))
	key := h.Sum(nil)
	if enc.Key("R").Int64() >= 3 {
		for range 50 {
			sum := md5.Sum(key[:n])
			key = sum[:]
		}
	}
	return key[:n]
}

// rc4Syntax is the little of PDF's syntax the in-place decryption
// needs, compiled on first use (not at every start).
var rc4Syntax = sync.OnceValue(func() (s struct{ objHeader, lengthKey, encrypt, xrefType *regexp.Regexp }) {
	s.objHeader = regexp.MustCompile(`(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+obj\b`)
	s.lengthKey = regexp.MustCompile(`/Length[ \t\r\n]+(\d+)(?:[ \t\r\n]+(\d+)[ \t\r\n]+R)?`)
	s.encrypt = regexp.MustCompile(`/Encrypt[ \t\r\n]+\d+[ \t\r\n]+\d+[ \t\r\n]+R`)
	s.xrefType = regexp.MustCompile(`/Type[ \t\r\n]*/XRef\b`)
	return s
})

// decryptShortRC4 decrypts every stream in place with the object key
// PDF 32000-1 prescribes (the first n+5 bytes of the hash): RC4 keeps
// lengths, so no offset moves and the cross-reference data stays valid.
// Then the library reads the result as a plain file, the trailer's
// /Encrypt entry renamed (same length). Strings outside streams (document information,
// outlines) stay encrypted; no page text lives there.
func decryptShortRC4(f io.ReaderAt, size int64) (*pdf.Reader, error) {
	if size > MaxDecryptBytes {
		return nil, &ErrEncrypted{fmt.Errorf("a %d MiB PDF with a short RC4 key (over the %d MiB decrypted in memory)", size>>20, MaxDecryptBytes>>20)}
	}
	syn := rc4Syntax()
	objHeader, lengthKey, encryptRe, xrefType := syn.objHeader, syn.lengthKey, syn.encrypt, syn.xrefType
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	// The library decrypts every string it resolves once a key is set,
	// the encryption dictionary's /O and the trailer's /ID too (which are
	// never encrypted). Renamed, /Encrypt is an ordinary entry: a plain
	// reading gives their bytes as they are.
	for _, m := range encryptRe.FindAllIndex(data, -1) {
		copy(data[m[0]:], "/Encrypx")
	}
	probe, err := pdf.NewReader(pdf20Compat{bytes.NewReader(data)}, size)
	if err != nil {
		return nil, &CorruptError{err}
	}
	trailer := probe.Trailer()
	key := fileKey(trailer, trailer.Key("Encrypx"))
	// Objects by number, for an indirect /Length.
	offsets := map[int]int{}
	for _, m := range objHeader.FindAllSubmatchIndex(data, -1) {
		id, _ := strconv.Atoi(string(data[m[2]:m[3]]))
		offsets[id] = m[1]
	}
	indirectInt := func(id int) (int, bool) {
		off, ok := offsets[id]
		if !ok {
			return 0, false
		}
		rest := bytes.TrimLeft(data[off:min(off+40, len(data))], " \t\r\n")
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(string(rest[:end]))
		return n, err == nil
	}
	pos := 0
	for pos < len(data) {
		m := objHeader.FindSubmatchIndex(data[pos:])
		if m == nil {
			break
		}
		id, _ := strconv.Atoi(string(data[pos+m[2] : pos+m[3]]))
		gen, _ := strconv.Atoi(string(data[pos+m[4] : pos+m[5]]))
		body := pos + m[1]
		pos = body
		endobj := bytes.Index(data[body:], []byte("endobj"))
		streamAt := bytes.Index(data[body:], []byte("stream"))
		if streamAt < 0 || (endobj >= 0 && endobj < streamAt) {
			continue
		}
		dict := data[body : body+streamAt]
		start := body + streamAt + len("stream")
		if start < len(data) && data[start] == '\r' {
			start++
		}
		if start < len(data) && data[start] == '\n' {
			start++
		}
		length := -1
		if lm := lengthKey.FindSubmatch(dict); lm != nil {
			n, _ := strconv.Atoi(string(lm[1]))
			if len(lm[2]) > 0 {
				if v, ok := indirectInt(n); ok {
					length = v
				}
			} else {
				length = n
			}
		}
		if length < 0 || start+length > len(data) {
			// No usable /Length: the data ends at endstream.
			e := bytes.Index(data[start:], []byte("endstream"))
			if e < 0 {
				continue
			}
			length = bytes.LastIndexFunc(data[start:start+e], func(r rune) bool { return r != '\r' && r != '\n' }) + 1
		}
		if !xrefType.Match(dict) {
			c, err := rc4.NewCipher(objectKey(key, id, gen))
			if err != nil {
				return nil, err
			}
			c.XORKeyStream(data[start:start+length], data[start:start+length])
		}
		pos = start + length
	}
	plain, err := pdf.NewReader(pdf20Compat{bytes.NewReader(data)}, size)
	if err != nil {
		return nil, &CorruptError{fmt.Errorf("after decryption: %v", err)}
	}
	return plain, nil
}

// objectKey is algorithm 1: the hash of the file key and the object's
// number and generation, cut to n+5 bytes (at most 16).
func objectKey(key []byte, id, gen int) []byte {
	h := md5.New()
	h.Write(key)
	h.Write([]byte{byte(id), byte(id >> 8), byte(id >> 16), byte(gen), byte(gen >> 8)})
	return h.Sum(nil)[:min(len(key)+5, 16)]
}
