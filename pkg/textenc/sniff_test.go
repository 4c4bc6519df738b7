package textenc

import (
	"strings"
	"testing"
)

func TestSniffType(t *testing.T) {
	tar := make([]byte, 512)
	copy(tar, "file.txt")
	copy(tar[257:], "ustar\x0000")
	cases := []struct {
		head string
		mime string
		weak bool
	}{
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png", false},
		{"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg", false},
		{"GIF89a\x01\x00", "image/gif", false},
		{"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp", false},
		{"RIFF\x10\x00\x00\x00WAVEfmt ", "audio/wav", false},
		{"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", "video/mp4", false},
		{"\x00\x00\x00\x18ftypheic", "image/heic", false},
		{"%PDF-1.7\n", "application/pdf", false},
		{"PK\x03\x04\x14\x00", "application/zip", false},
		{"\x7fELF\x02\x01\x01", "application/x-elf", false},
		{"MZ\x90\x00\x03", "application/vnd.microsoft.portable-executable", true},
		{"BM6\x00\x00\x00", "image/bmp", true},
		{"SQLite format 3\x00", "application/vnd.sqlite3", false},
		{string(tar), "application/x-tar", true},
	}
	for _, c := range cases {
		ft, ok := SniffType([]byte(c.head))
		if !ok || ft.MIME != c.mime || ft.Weak != c.weak || ft.Name == "" {
			t.Errorf("SniffType(%q) = %+v, %v; want %s (weak %v)", c.head[:min(8, len(c.head))], ft, ok, c.mime, c.weak)
		}
	}
	for _, text := range []string{"", "package main\n", "#!/bin/sh\n", "<svg xmlns=", "{\"a\": 1}", "RIFF", strings.Repeat("x", 600)} {
		if ft, ok := SniffType([]byte(text)); ok {
			t.Errorf("SniffType(%q) = %+v, want no match", text[:min(10, len(text))], ft)
		}
	}
}

func FuzzSniffType(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBP"))
	f.Add([]byte("\x00\x00\x00\x00ftyp"))
	f.Fuzz(func(t *testing.T, head []byte) {
		if ft, ok := SniffType(head); ok && (ft.Name == "" || ft.MIME == "") {
			t.Errorf("match without a name: %+v", ft)
		}
	})
}
