package read

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/textenc"
)

func TestAppendNumberedIsCatN(t *testing.T) {
	for _, n := range []int{1, 9, 10, 99999, 999999, 1000000, 12345678} {
		got := string(appendNumbered(nil, n, "x\ty", 0))
		if want := fmt.Sprintf("%6d→x\ty\n", n); got != want {
			t.Errorf("appendNumbered(%d) = %q, want %q", n, got, want)
		}
	}
	if got, want := string(appendNumbered(nil, 3, "abc", 42)), "     3→abc… [42 more characters]\n"; got != want {
		t.Errorf("cut line = %q, want %q", got, want)
	}
}

func TestLineText(t *testing.T) {
	long := strings.Repeat("é", MaxLineChars+10)
	cases := []struct {
		name       string
		head       string
		dropped    int
		cr         bool
		singleByte textenc.Encoding
		want       string
		cut        int
		odd        bool
	}{
		{"plain", "hello", 0, false, "", "hello", 0, false},
		{"crlf", "hello\r", 0, true, "", "hello", 0, false},
		{"lone cr kept inside", "a\rb", 0, false, "", "a\rb", 0, false},
		{"exactly max", strings.Repeat("x", MaxLineChars), 0, false, "", strings.Repeat("x", MaxLineChars), 0, false},
		{"one over", strings.Repeat("x", MaxLineChars+1), 0, false, "", strings.Repeat("x", MaxLineChars), 1, false},
		{"runes not bytes", long, 0, false, "", strings.Repeat("é", MaxLineChars), 10, false},
		{"dropped tail", strings.Repeat("x", MaxLineChars+5), 100, false, "", strings.Repeat("x", MaxLineChars), 105, false},
		{"dropped tail ends in cr", strings.Repeat("x", MaxLineChars+5), 100, true, "", strings.Repeat("x", MaxLineChars), 104, false},
		{"head cut inside a rune", strings.Repeat("x", MaxLineChars+5) + "\xe2\x82", 7, false, "", strings.Repeat("x", MaxLineChars), 13, false},
		{"latin-1 line", "caf\xe9 cr\xe8me", 0, false, "", "café crème", 0, true},
		{"cp1252 quotes", "\x93quoted\x94", 0, false, "", "\u201cquoted\u201d", 0, true},
		{"long latin-1 line", "\xe9" + strings.Repeat("x", MaxLineChars+5), 7, false, "", "é" + strings.Repeat("x", MaxLineChars-1), 13, true},
		// In a single-byte file, a UTF-8 line is shown as UTF-8 (and is
		// the odd one); an ASCII line is simply text.
		{"utf-8 line in a latin-1 file", "caf\xc3\xa9", 0, false, textenc.Latin1, "café", 0, true},
		{"latin-1 line in a latin-1 file", "caf\xe9", 0, false, textenc.Latin1, "café", 0, false},
		{"ascii line in a latin-1 file", "cafe", 0, false, textenc.Latin1, "cafe", 0, false},
		{"latin-1 is not cp1252", "\x93", 0, false, textenc.Latin1, "\u0093", 0, false},
		{"long latin-1 line in a latin-1 file", strings.Repeat("\xe9", MaxLineChars+5), 7, false, textenc.Latin1, strings.Repeat("é", MaxLineChars), 12, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, cut, odd := lineText([]byte(c.head), c.dropped, c.cr, c.singleByte)
			if got != c.want || cut != c.cut || odd != c.odd {
				t.Errorf("lineText = %q…, %d, %v; want %q…, %d, %v", head(got), cut, odd, head(c.want), c.cut, c.odd)
			}
		})
	}
}

func head(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

// refPage is the obvious, whole-file rendering of a page of valid UTF-8
// text: what scanPage must produce however its input arrives.
func refPage(data string, offset, limit int) (out string, end, total int, capped bool) {
	lines := strings.Split(data, "\n")
	if strings.HasSuffix(data, "\n") || data == "" {
		lines = lines[:len(lines)-1]
	}
	total = len(lines)
	end = offset - 1
	var b strings.Builder
	for i := offset - 1; i < total && i-offset+1 < limit; i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		cut := 0
		if n := utf8.RuneCountInString(l); n > MaxLineChars {
			cut = n - MaxLineChars
			l = string([]rune(l)[:MaxLineChars])
		}
		f := fmt.Sprintf("%6d→%s", i+1, l)
		if cut > 0 {
			f += fmt.Sprintf("… [%d more characters]", cut)
		}
		f += "\n"
		if b.Len()+len(f) > MaxOutputBytes && i > offset-1 {
			capped = true
			break
		}
		b.WriteString(f)
		end = i + 1
	}
	return b.String(), end, total, capped
}

func checkScan(t *testing.T, data []byte, offset, limit int) {
	t.Helper()
	// The same bytes read as a UTF-8 and as a Latin-1 file: a line valid
	// in UTF-8 is shown as UTF-8 either way.
	for _, singleByte := range []textenc.Encoding{"", textenc.Latin1} {
		checkScanAs(t, data, offset, limit, singleByte)
	}
}

func checkScanAs(t *testing.T, data []byte, offset, limit int, singleByte textenc.Encoding) {
	t.Helper()
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"halves":   func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
	}
	valid := utf8.Valid(data)
	wantOut, wantEnd, wantTotal, wantCapped := refPage(string(data), offset, limit)
	for name, mk := range readers {
		if singleByte != "" {
			name += " as " + string(singleByte)
		}
		p, err := scanPage(context.Background(), mk(), pageRequest{offset: offset, limit: limit, size: int64(len(data)), fullScan: true, singleByte: singleByte})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.total != wantTotal || !p.totalExact {
			t.Fatalf("%s: total %d (exact %v), want %d", name, p.total, p.totalExact, wantTotal)
		}
		if p.lf != bytes.Count(data, []byte{'\n'}) || p.crlf != bytes.Count(data, []byte("\r\n")) {
			t.Fatalf("%s: lf %d crlf %d, want %d %d", name, p.lf, p.crlf, bytes.Count(data, []byte{'\n'}), bytes.Count(data, []byte("\r\n")))
		}
		if p.scanned != int64(len(data)) {
			t.Fatalf("%s: scanned %d of %d bytes", name, p.scanned, len(data))
		}
		if !valid {
			// Invalid UTF-8 is shown decoded as Latin-1 or Windows-1252:
			// the page has the same lines, each well-formed.
			if got := strings.Count(string(p.output), "\n"); got != max(0, p.end-p.start+1) || !utf8.Valid(p.output) {
				t.Fatalf("%s: %d output lines for %d..%d, valid %v", name, got, p.start, p.end, utf8.Valid(p.output))
			}
			continue
		}
		if diff := cmp.Diff(wantOut, string(p.output)); diff != "" {
			t.Fatalf("%s: output (-want +got):\n%s", name, diff)
		}
		if p.end != wantEnd || p.outputCapped != wantCapped {
			t.Fatalf("%s: end %d capped %v, want %d %v", name, p.end, p.outputCapped, wantEnd, wantCapped)
		}
	}
}

func TestScanPageMatchesReference(t *testing.T) {
	long := strings.Repeat("ab€", 1500) // 4500 characters, 7500 bytes
	manyLong := strings.Repeat("x"+strings.Repeat("é", 2100)+"\n", 30)
	cases := []struct {
		name          string
		data          string
		offset, limit int
	}{
		{"empty", "", 1, 10},
		{"one line no newline", "hello", 1, 10},
		{"one line", "hello\n", 1, 10},
		{"blank lines", "\n\n\n", 1, 10},
		{"crlf", "a\r\nb\r\n", 1, 10},
		{"mixed", "a\r\nb\nc", 1, 10},
		{"offset", "1\n2\n3\n4\n5\n", 3, 10},
		{"limit", "1\n2\n3\n4\n5\n", 2, 2},
		{"last line", "1\n2\n3", 3, 1},
		{"long line", "short\n" + long + "\nafter\n", 1, 10},
		{"long line crlf", long + "\r\n", 1, 10},
		{"many long lines hit the output cap", manyLong, 1, 2000},
		{"cap from an offset", manyLong, 7, 2000},
		{"numbers wider than six", strings.Repeat("x\n", 20), 15, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkScan(t, []byte(c.data), c.offset, c.limit) })
	}
}

func FuzzScanPage(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 1, 2)
	f.Add([]byte("caf\xe9\n\x93q\x94\r\n"), 2, 5)
	f.Add([]byte(strings.Repeat("é", 2001)+"\r\n"), 1, 1)
	f.Fuzz(func(t *testing.T, data []byte, offset, limit int) {
		total := bytes.Count(data, []byte{'\n'})
		offset = 1 + abs(offset)%(total+2)
		limit = 1 + abs(limit)%MaxLimit
		checkScan(t, data, offset, limit)
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}

// A page near the start of a big file does not read it all: the total is
// then a lower bound. A page deep in it counts on to the end.
func TestScanPageStopsEarlyOnlyWhenCheap(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 400_000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	data := []byte(b.String()) // about 4.6 MiB: four reads of scanBufSize
	req := pageRequest{offset: 10, limit: 5, size: int64(len(data))}
	p, err := scanPage(context.Background(), bytes.NewReader(data), req)
	if err != nil {
		t.Fatal(err)
	}
	if p.totalExact || p.total >= 400_000 || p.total < 15 || p.scanned >= int64(len(data)) {
		t.Errorf("early page: total %d exact %v after %d of %d bytes; want a lower bound from a partial scan", p.total, p.totalExact, p.scanned, len(data))
	}
	if want := numbered(10, "line 10", "line 11", "line 12", "line 13", "line 14"); string(p.output) != want {
		t.Errorf("output %q, want %q", p.output, want)
	}

	req.offset = 390_000
	p, err = scanPage(context.Background(), bytes.NewReader(data), req)
	if err != nil {
		t.Fatal(err)
	}
	if !p.totalExact || p.total != 400_000 {
		t.Errorf("deep page: total %d exact %v, want 400000 exact", p.total, p.totalExact)
	}
	req.fullScan, req.offset = true, 10
	if p, _ = scanPage(context.Background(), bytes.NewReader(data), req); !p.totalExact || p.total != 400_000 {
		t.Errorf("full scan: total %d exact %v", p.total, p.totalExact)
	}
}

func TestScanPageHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := scanPage(ctx, strings.NewReader("a\n"), pageRequest{offset: 1, limit: 1, fullScan: true}); err == nil {
		t.Error("cancelled scan succeeded")
	}
}

// scanColumn reads line 1 of data from the character column (1-based),
// through readers that split it anywhere, and checks what is shown.
func scanColumn(t *testing.T, data []byte, singleByte textenc.Encoding, runes []rune, column int) {
	t.Helper()
	for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
		p, err := scanPage(context.Background(), r, pageRequest{offset: 1, limit: 1, fullScan: true, skip: column - 1, singleByte: singleByte})
		if err != nil {
			t.Fatal(err)
		}
		if p.firstLineChars != len(runes) || p.skipped != min(column-1, len(runes)) {
			t.Fatalf("column %d of %d characters: firstLineChars %d skipped %d", column, len(runes), p.firstLineChars, p.skipped)
		}
		if column > len(runes) {
			continue
		}
		rest := runes[column-1:]
		shown := rest[:min(len(rest), MaxLineChars)]
		want := fmt.Sprintf("%6d%s%s", 1, LineArrow, string(shown))
		if cut := len(rest) - len(shown); cut > 0 {
			want += fmt.Sprintf("%s%d%s", cutMarkPrefix, cut, cutMarkSuffix)
		}
		got, _, _ := strings.Cut(string(p.output), "\n")
		if got != want {
			t.Fatalf("column %d of %d characters:\n got %q\nwant %q", column, len(runes), clipText(got), clipText(want))
		}
		if wantCut := len(rest) > MaxLineChars; (len(p.cutLines) > 0) != wantCut {
			t.Fatalf("column %d: cutLines %v, want cut %v", column, p.cutLines, wantCut)
		}
	}
}

func clipText(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

func TestScanFromColumn(t *testing.T) {
	long := strings.Repeat("a", 2500) + strings.Repeat("é", 2500) + "END"
	runes := []rune(long)
	for _, col := range []int{1, 2, 2001, 2500, 2501, 4001, len(runes), len(runes) + 1} {
		scanColumn(t, []byte(long+"\r\nnext\n"), "", runes, col)
	}
	latin := strings.Repeat("caf\xe9 ", 1000) // Latin-1: é is one byte
	lrunes := []rune(strings.Repeat("café ", 1000))
	for _, col := range []int{1, 4, 2001, 3000, 5000, 5001} {
		scanColumn(t, []byte(latin+"\n"), textenc.Latin1, lrunes, col)
	}
}

func FuzzScanColumn(f *testing.F) {
	f.Add(strings.Repeat("é", 3000), 2001)
	f.Add(strings.Repeat("a€", 1500)+"z", 1999)
	f.Add("short", 3)
	f.Fuzz(func(t *testing.T, line string, column int) {
		if !utf8.ValidString(line) || strings.ContainsAny(line, "\r\n") || line == "" {
			return
		}
		runes := []rune(line)
		column = 1 + abs(column)%(len(runes)+1)
		scanColumn(t, []byte(line+"\nnext\n"), "", runes, column)
	})
}
