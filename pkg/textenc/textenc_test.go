package textenc

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestDetectDecodeEncodeRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		enc  Encoding
		text string
	}{
		{"utf8", []byte("héllo\n"), UTF8, "héllo\n"},
		{"bom", []byte("\xEF\xBB\xBFhi\n"), UTF8BOM, "hi\n"},
		{"utf16le", []byte("\xFF\xFEh\x00i\x00\n\x00"), UTF16LE, "hi\n"},
		{"utf16be", []byte("\xFE\xFF\x00h\x00i\x00\n"), UTF16BE, "hi\n"},
		{"latin1", []byte("caf\xE9\n"), Latin1, "café\n"},
		{"cp1252", []byte("\x93quoted\x94 \x80\n"), Windows1252, "\u201cquoted\u201d €\n"},
		{"cut rune", []byte("ab\xE2\x82"), UTF8, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			enc, err := Detect(c.data)
			if err != nil || enc != c.enc {
				t.Fatalf("Detect = %q, %v; want %q", enc, err, c.enc)
			}
			if c.text == "" {
				return
			}
			text, err := Decode(c.data, enc)
			if err != nil || text != c.text {
				t.Fatalf("Decode = %q, %v; want %q", text, err, c.text)
			}
			back, err := Encode(text, enc)
			if err != nil || !bytes.Equal(back, c.data) {
				t.Errorf("Encode = %q, %v; want %q", back, err, c.data)
			}
		})
	}
}

func TestDetectBinary(t *testing.T) {
	for _, data := range [][]byte{
		[]byte("ELF\x00\x01\x02"),
		[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		bytes.Repeat([]byte{0x01, 0x02, 'a'}, 100),
	} {
		if _, err := Detect(data); !errors.Is(err, ErrBinary) {
			t.Errorf("Detect(%q) = %v, want ErrBinary", data[:8], err)
		}
	}
	if _, err := Detect([]byte("\x1b[31mred\x1b[0m\n")); err != nil {
		t.Errorf("ANSI text judged binary: %v", err)
	}
}

func TestEncodeRefusesWhatItCannotHold(t *testing.T) {
	if _, err := Encode("snowman ☃", Latin1); err == nil {
		t.Error("Latin-1 cannot hold ☃")
	}
	if _, err := Encode("ok\xff", UTF8); err == nil {
		t.Error("invalid UTF-8 must be refused")
	}
}

func TestLineEndings(t *testing.T) {
	cases := map[string]LineEnding{"a\nb\n": LF, "a\r\nb\r\n": CRLF, "a\r\nb\n": Mixed, "abc": None, "": None}
	for in, want := range cases {
		if got := LineEndings([]byte(in)); got != want {
			t.Errorf("LineEndings(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNewReaderStreamsWhatDecodeReturns(t *testing.T) {
	cases := []struct {
		data []byte
		enc  Encoding
	}{
		{[]byte("plain\n"), UTF8},
		{[]byte("\xEF\xBB\xBFhi\r\nthere\r\n"), UTF8BOM},
		{append([]byte("\xFF\xFE"), bytes.Repeat([]byte("a\x00\xe9\x00\n\x00"), 5000)...), UTF16LE},
		{append([]byte("\xFE\xFF"), bytes.Repeat([]byte("\x00a\x00\n"), 5000)...), UTF16BE},
		{bytes.Repeat([]byte("caf\xE9\n"), 3000), Latin1},
		{[]byte("\x93q\x94\n"), Windows1252},
	}
	for _, c := range cases {
		want, err := Decode(c.data, c.enc)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(c.data), c.enc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != want {
			t.Errorf("%s: NewReader gave %q, %v; want %q", c.enc, got[:min(len(got), 20)], err, want[:min(len(want), 20)])
		}
	}
	if _, err := NewReader(bytes.NewReader(nil), "ebcdic"); err == nil {
		t.Error("unknown encoding accepted")
	}
}
