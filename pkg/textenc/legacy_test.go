package textenc

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestLinesToUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"caf\xe9\n":                 "café\n",
		"ok\ncaf\xe9\r\nnaïve\n":    "ok\ncafé\r\nnaïve\n",
		"\x93quoted\x94":            "\u201cquoted\u201d",
		"plain\n":                   "plain\n",
		"mixed é and \xe9 on one\n": "mixed Ã© and é on one\n",
	} {
		if got := string(LinesToUTF8([]byte(in), "")); got != want {
			t.Errorf("LinesToUTF8(%q) = %q, want %q", in, got, want)
		}
	}
	if got := string(LinesToUTF8([]byte("\x85\n"), Latin1)); got != "\u0085\n" {
		t.Errorf("Latin-1: %q", got)
	}
}

func FuzzLinesToUTF8(f *testing.F) {
	f.Add([]byte("caf\xe9\nok\r\n\x93x\x94"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := LinesToUTF8(data, "")
		if !utf8.Valid(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("line breaks moved: %q → %q", data, out)
		}
		if utf8.Valid(data) && !bytes.Equal(out, data) {
			t.Fatalf("valid text changed: %q → %q", data, out)
		}
	})
}
