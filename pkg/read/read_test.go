package read

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/internal/nobody"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestReadTextFile(t *testing.T) {
	env := testEnv(t)
	data := []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	write(t, env, "main.go", data)
	resp, res := mustRead(t, env, Params{Path: "main.go"})
	want := numbered(1, "package main", "", "func main() {", "\tprintln(\"hi\")", "}")
	if diff := cmp.Diff(want, resp.Output); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantRes := Result{
		Path: filepath.Join(env.Root, "main.go"), Kind: KindText, Bytes: int64(len(data)),
		SHA256: ptr(sha256Hex(data)), Lines: &Lines{Start: 1, End: 5, Total: 5, TotalExact: true},
		Encoding: "utf-8", LineEnding: "lf",
	}
	if diff := cmp.Diff(wantRes, *res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if resp.Truncated || resp.Continuation != nil {
		t.Errorf("whole file marked truncated: %+v", resp.Continuation)
	}
}

func ptr[T any](v T) *T { return &v }

func TestReadEncodings(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	utf16be := []byte{0xFE, 0xFF}
	for _, r := range "héllo\r\nwörld\r\n" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
		utf16be = append(utf16be, byte(r>>8), byte(r))
	}
	cases := []struct {
		name, enc, ending string
		data              []byte
		lines             []string
		nonUTF8Note       bool
	}{
		{"utf-8 bom", "utf-8-bom", "lf", []byte("\xEF\xBB\xBFfirst\nsecond\n"), []string{"first", "second"}, false},
		{"utf-16le crlf", "utf-16le", "crlf", utf16le, []string{"héllo", "wörld"}, false},
		{"utf-16be crlf", "utf-16be", "crlf", utf16be, []string{"héllo", "wörld"}, false},
		{"latin-1", "latin-1", "lf", []byte("caf\xe9\nna\xefve\n"), []string{"café", "naïve"}, false},
		{"windows-1252", "windows-1252", "mixed", []byte("\x93quoted\x94\r\n\x80 5\n"), []string{"\u201cquoted\u201d", "€ 5"}, false},
		// Lines of UTF-8 and of Windows-1252 in the first block: each is
		// shown as written, and a stray byte after a BOM is no U+FFFD.
		{"utf-8 and windows-1252", "windows-1252", "lf", []byte("caf\xc3\xa9\n\x93q\x94\n"), []string{"café", "\u201cq\u201d"}, false},
		{"utf-8 bom, a latin-1 byte", "utf-8-bom", "lf", []byte("\xEF\xBB\xBFcaf\xe9\n"), []string{"café"}, false},
		// A Latin-1 line after a UTF-8 first block is shown decoded too.
		{"late latin-1", "utf-8", "lf", []byte(strings.Repeat("a\n", 5000) + "caf\xe9\n"), nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			write(t, env, "f.txt", c.data)
			p := Params{Path: "f.txt"}
			if c.nonUTF8Note {
				p.Offset = 4990 // past the block Detect looks at
			}
			resp, res := mustRead(t, env, p)
			if res.Encoding != c.enc || res.LineEnding != c.ending {
				t.Errorf("encoding %s, line ending %s; want %s, %s", res.Encoding, res.LineEnding, c.enc, c.ending)
			}
			if c.lines != nil {
				if diff := cmp.Diff(numbered(1, c.lines...), resp.Output); diff != "" {
					t.Errorf("output (-want +got):\n%s", diff)
				}
			}
			if strings.ContainsAny(resp.Output, "\r\uFFFD") {
				t.Errorf("output leaks \\r or U+FFFD: %q", resp.Output)
			}
			if *res.SHA256 != sha256Hex(c.data) || res.Bytes != int64(len(c.data)) {
				t.Errorf("sha256/bytes are not those of the file's bytes")
			}
			if c.nonUTF8Note {
				if !strings.HasSuffix(resp.Output, "  5001→café\n") || !hasNote(res, "not valid UTF-8") {
					t.Errorf("late Latin-1 line not decoded and noted: %q… notes %v", resp.Output[len(resp.Output)-30:], res.Notes)
				}
			}
		})
	}
}

func hasNote(res *Result, sub string) bool {
	for _, n := range res.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func TestReadPaging(t *testing.T) {
	env := testEnv(t)
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "%c\n", 'a'+i%26) // short enough for 2000 under the output cap
	}
	write(t, env, "big.txt", []byte(b.String()))

	// The default page is the first DefaultLimit lines, marked truncated,
	// with the next call spelled out.
	resp, res := mustRead(t, env, Params{Path: "big.txt"})
	if res.Lines.End != DefaultLimit || res.Lines.Total != 5000 || !resp.Truncated {
		t.Errorf("default page: %+v truncated %v", res.Lines, resp.Truncated)
	}
	if c := resp.Continuation; c == nil || c.NextOffset != DefaultLimit+1 || !strings.Contains(c.Hint, "mcode read big.txt --offset 2001") {
		t.Errorf("continuation %+v", resp.Continuation)
	}

	// An explicit window gets exactly what it asked for: not truncated,
	// but the continuation still says where the rest is.
	resp, res = mustRead(t, env, Params{Path: "big.txt", Offset: 100, Limit: 3})
	if resp.Output != numbered(100, "w", "x", "y") || resp.Truncated {
		t.Errorf("window: %q truncated %v", resp.Output, resp.Truncated)
	}
	if c := resp.Continuation; c == nil || c.NextOffset != 103 || !strings.Contains(c.Hint, "--offset 103 --limit 3") {
		t.Errorf("window continuation %+v", resp.Continuation)
	}

	// The last page has no continuation.
	resp, res = mustRead(t, env, Params{Path: "big.txt", Offset: 4999})
	if res.Lines.Start != 4999 || res.Lines.End != 5000 || resp.Continuation != nil || resp.Truncated {
		t.Errorf("last page: %+v %+v", res.Lines, resp.Continuation)
	}

	te := readErr(t, env, Params{Path: "big.txt", Offset: 5001}, tool.CodeInvalidArgs)
	if !strings.Contains(te.Message, "5000 lines") {
		t.Errorf("past the end: %q", te.Message)
	}
}

func TestReadOutputCap(t *testing.T) {
	env := testEnv(t)
	line := strings.Repeat("x", 1000)
	write(t, env, "wide.txt", []byte(strings.Repeat(line+"\n", 100)))
	resp, res := mustRead(t, env, Params{Path: "wide.txt", Limit: 100})
	if len(resp.Output) > MaxOutputBytes {
		t.Errorf("output is %d bytes, over the cap", len(resp.Output))
	}
	n := res.Lines.End
	if n < 20 || n >= 100 || !resp.Truncated || resp.Continuation.NextOffset != n+1 {
		t.Errorf("capped page ends at %d, truncated %v, continuation %+v", n, resp.Truncated, resp.Continuation)
	}
	if !strings.Contains(resp.Continuation.Hint, fmt.Sprintf("cap after line %d", n)) {
		t.Errorf("hint does not explain the cap: %q", resp.Continuation.Hint)
	}
	if !strings.HasSuffix(resp.Output, fmt.Sprintf("%6d→%s\n", n, line)) {
		t.Error("the page does not end on a whole line")
	}
}

func TestReadLongLineCut(t *testing.T) {
	env := testEnv(t)
	long := strings.Repeat("ü", MaxLineChars+345)
	write(t, env, "min.js", []byte("a\n"+long+"\nb\n"))
	resp, res := mustRead(t, env, Params{Path: "min.js"})
	want := numbered(1, "a") + fmt.Sprintf("%6d→%s… [345 more characters]\n", 2, strings.Repeat("ü", MaxLineChars)) + numbered(3, "b")
	if resp.Output != want {
		t.Errorf("cut line rendered wrong: ends %q", resp.Output[len(resp.Output)-60:])
	}
	if !hasNote(res, "1 line longer than 2000 characters was cut (2)") {
		t.Errorf("notes %v", res.Notes)
	}
}

func TestReadEmptyFile(t *testing.T) {
	env := testEnv(t)
	write(t, env, "empty", nil)
	resp, res := mustRead(t, env, Params{Path: "empty"})
	if resp.Output != "" || res.Lines.Total != 0 || res.LineEnding != "none" || !hasNote(res, "empty") || *res.SHA256 != sha256Hex(nil) {
		t.Errorf("empty file: %q %+v", resp.Output, res)
	}
	readErr(t, env, Params{Path: "empty", Offset: 2}, tool.CodeInvalidArgs)
}

func TestReadBadParams(t *testing.T) {
	env := testEnv(t)
	write(t, env, "f", []byte("x\n"))
	for _, p := range []Params{{Path: ""}, {Path: "f", Offset: -1}, {Path: "f", Limit: -5}, {Path: "f", Limit: MaxLimit + 1},
		{Path: "a\x00b"}, {Path: strings.Repeat("x", 5000)}} {
		readErr(t, env, p, tool.CodeInvalidArgs)
	}
	if err := os.Symlink("loop", filepath.Join(env.Root, "loop")); err != nil {
		t.Fatal(err)
	}
	te := readErr(t, env, Params{Path: "loop"}, tool.CodeNotFound)
	if !strings.Contains(te.Message, "loop") {
		t.Errorf("symlink loop: %q", te.Message)
	}
}

// Files over FullScanMaxBytes are streamed: a page at the start stops
// early, without a sha256, and says its total is a lower bound.
func TestReadHugeFileStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MiB file")
	}
	env := testEnv(t)
	line := strings.Repeat("y", 99) + "\n"
	n := FullScanMaxBytes/len(line) + 1000
	f, err := os.Create(filepath.Join(env.Root, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(line, 10000))
	for written := 0; written < n; written += 10000 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	total := (n + 9999) / 10000 * 10000

	resp, res := mustRead(t, env, Params{Path: "huge.log", Offset: 10, Limit: 2})
	if res.SHA256 != nil || res.Lines.TotalExact || res.Lines.Total >= total || resp.Continuation == nil {
		t.Errorf("early page of a huge file: sha %v lines %+v", res.SHA256, res.Lines)
	}
	if !hasNote(res, "lower bound") || !hasNote(res, "sha256 is not computed") {
		t.Errorf("notes %v", res.Notes)
	}
	_, res = mustRead(t, env, Params{Path: "huge.log", Offset: total - 5})
	if !res.Lines.TotalExact || res.Lines.Total != total || res.Lines.End != total {
		t.Errorf("deep page of a huge file: %+v, want total %d exact", res.Lines, total)
	}
}

func TestReadPagesIgnoredOnText(t *testing.T) {
	env := testEnv(t)
	write(t, env, "a.txt", []byte("a\n"))
	_, res := mustRead(t, env, Params{Path: "a.txt", Pages: "1-3"})
	if !hasNote(res, "pages applies to PDF files only") {
		t.Errorf("notes %v", res.Notes)
	}
}

func TestReadBinary(t *testing.T) {
	cases := []struct {
		name, typ string
		data      []byte
	}{
		{"prog", "ELF executable", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...)},
		{"a.zip", "ZIP archive", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")},
		{"blob", "binary data", []byte("abc\x00def")},
		{"db", "SQLite database", append([]byte("SQLite format 3\x00"), make([]byte, 50)...)},
	}
	for _, c := range cases {
		env := testEnv(t)
		write(t, env, c.name, c.data)
		resp, err := Run(context.Background(), env, Params{Path: c.name})
		te := tool.AsError(err)
		if te.Code != tool.CodeBinaryFile || !strings.Contains(te.Message, c.typ) || !strings.Contains(te.Message, fmt.Sprintf("%d B", len(c.data))) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res := resp.Result.(Result); res.Kind != KindBinary || res.Type != c.typ || res.Bytes != int64(len(c.data)) {
			t.Errorf("%s: result %+v", c.name, res)
		}
	}
	// A weak signature on plain text is text, and so is text that only
	// mentions a magic number.
	env := testEnv(t)
	tarLike := make([]byte, 300)
	for i := range tarLike {
		tarLike[i] = 'a'
	}
	copy(tarLike[257:], "ustar")
	for name, data := range map[string][]byte{
		"MZ.txt":    []byte("MZ is a region code\n"),
		"sniff.go":  []byte("package x\n\n// A PDF starts with %PDF-1.7\nvar magic = \"%PDF-\"\n"),
		"ustar.txt": tarLike,
	} {
		write(t, env, name, data)
		if _, res := mustRead(t, env, Params{Path: name}); res.Kind != KindText {
			t.Errorf("%s read as %s", name, res.Kind)
		}
	}
}

func TestReadRefusesWhatWouldBlock(t *testing.T) {
	env := testEnv(t)
	write(t, env, "dir/file.go", []byte("x\n"))
	te := readErr(t, env, Params{Path: "dir"}, tool.CodeIsDirectory)
	if !strings.Contains(te.Hint, "mcode glob") {
		t.Errorf("directory hint %q", te.Hint)
	}
	for _, p := range []string{"/dev/zero", "/dev/urandom", "/dev/stdin", "/dev/tty", "/proc/self/fd/0", "/dev/fd/0"} {
		readErr(t, env, Params{Path: p}, tool.CodeSpecialFile)
	}
	readErr(t, env, Params{Path: "/dev/null"}, tool.CodeSpecialFile) // by stat: a char device
	// A symlink to a device is caught by the stat.
	if err := os.Symlink("/dev/zero", filepath.Join(env.Root, "zero")); err != nil {
		t.Fatal(err)
	}
	readErr(t, env, Params{Path: "zero"}, tool.CodeSpecialFile)
}

func TestReadNotFoundSuggests(t *testing.T) {
	env := testEnv(t)
	write(t, env, "config.yaml", []byte("a: 1\n"))
	te := readErr(t, env, Params{Path: "config.yml"}, tool.CodeNotFound)
	if !strings.Contains(te.Hint, filepath.Join(env.Root, "config.yaml")) {
		t.Errorf("hint %q lacks the near name", te.Hint)
	}
	readErr(t, env, Params{Path: "config.yaml/inner"}, tool.CodeNotADirectory)
}

func TestReadHomeAndAbsolutePaths(t *testing.T) {
	env := testEnv(t)
	write(t, env, "home/notes.md", []byte("# hi\n"))
	_, res := mustRead(t, env, Params{Path: "~/notes.md"})
	if res.Path != filepath.Join(env.UserHome, "notes.md") {
		t.Errorf("~ path read %s", res.Path)
	}
	_, res = mustRead(t, env, Params{Path: filepath.Join(env.Root, "home", "notes.md")})
	if res.Variant != nil {
		t.Errorf("absolute path has variant %v", *res.Variant)
	}
}

// An unreadable file is permission, not internal. Root reads anything,
// so as root the check runs in a child process as nobody.
func TestReadPermissionDenied(t *testing.T) {
	if nobody.Dir() != "" {
		env := testEnv(t)
		env.Root = nobody.Dir()
		checkPermissionErrors(t, env)
		return
	}
	dir := nobody.TempDir(t)
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "locked"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "locked", "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(filepath.Join(dir, "locked"), 0o000); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(dir, "locked"), 0o700)
		env := testEnv(t)
		env.Root = dir
		checkPermissionErrors(t, env)
		return
	}
	nobody.Run(t, dir, "TestReadPermissionDenied")
}

func checkPermissionErrors(t *testing.T, env *tool.Env) {
	te := readErr(t, env, Params{Path: "secret.txt"}, tool.CodePermission)
	if strings.Contains(te.Message, "s3cret") {
		t.Error("the error shows the file's content")
	}
	readErr(t, env, Params{Path: "locked/f.txt"}, tool.CodePermission)
}

func TestReadRejectsBadPagesOnlyForPDF(t *testing.T) {
	env := testEnv(t)
	write(t, env, "a.txt", []byte("x\n"))
	if _, err := Run(context.Background(), env, Params{Path: "a.txt", Pages: "zzz"}); err != nil {
		t.Errorf("pages on a text file must be ignored, got %v", err)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := fsutil.HumanBytes(n); got != want {
			t.Errorf("fsutil.HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
