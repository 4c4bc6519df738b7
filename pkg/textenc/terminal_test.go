package textenc

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanTerminal(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m\n", "red and bold green\n"},
		{"crlf\r\nline\r\n", "crlf\nline\n"},
		{"10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"10%\r50%\r", "50%"},                                     // cut mid-frame: the last frame drawn
		{"progress 3/3\r\x1b[Kfinished\n", "finished\n"},          // erase-line then rewrite
		{"title\x1b]0;window title\x07 after\n", "title after\n"}, // OSC with BEL
		{"osc\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "osclink\n"},
		{"bell\x07 nul\x00 del\x7f\n", "bell nul del\n"},
		{"b\bbold\n", "bold\n"},
		{"tab\there\n", "tab\there\n"},
		{"charset\x1b(Bok\n", "charsetok\n"},
		{"cut\x1b[3", "cut"},
		{"lone\x1b", "lone"},
		{"open\x1bXstring\nnext\n", "open\nnext\n"}, // an unterminated string sequence stops at the line end
		{"bad utf8 \xff\xfe ok\n", "bad utf8 \uFFFD ok\n"},
		{"日本語\r\n", "日本語\n"},
		{"", ""},
	}
	for _, c := range cases {
		if got := CleanTerminal([]byte(c.in)); got != c.want {
			t.Errorf("CleanTerminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzCleanTerminal(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb\r\nc", "x\ry\rz", "\x1b]0;t\x07", "\b\b", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := CleanTerminal(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		if strings.ContainsAny(out, "\x1b\r\b\x00") {
			t.Fatalf("control bytes left in %q (from %q)", out, in)
		}
		if strings.Count(out, "\n") != bytes.Count(in, []byte{'\n'}) {
			t.Fatalf("line count changed: %q -> %q", in, out)
		}
		if again := CleanTerminal([]byte(out)); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}
