package trash

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gnuRmQuotes runs GNU rm on names that do not exist and returns how it
// quoted each in "cannot remove X: No such file or directory".
func gnuRmQuotes(t *testing.T, locale string, names []string) []string {
	t.Helper()
	rm, err := exec.LookPath("rm")
	if err != nil {
		t.Skip("no rm on PATH")
	}
	if out, _ := exec.Command(rm, "--version").Output(); !bytes.Contains(out, []byte("GNU coreutils")) {
		t.Skip("rm is not GNU rm")
	}
	dir := t.TempDir()
	cmd := exec.Command(rm, append([]string{"--"}, names...)...)
	cmd.Args[0] = "rm"
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL="+locale)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	var quoted []string
	for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		q, ok := strings.CutPrefix(line, "rm: cannot remove ")
		q, ok2 := strings.CutSuffix(q, ": No such file or directory")
		if !ok || !ok2 {
			t.Fatalf("unexpected rm message %q", line)
		}
		quoted = append(quoted, q)
	}
	if len(quoted) != len(names) {
		t.Fatalf("rm printed %d messages for %d names:\n%s", len(quoted), len(names), stderr.String())
	}
	return quoted
}

var quoteNames = []string{
	"plain", "a b", "a'b", "a'b c", `a"b`, "a$b", `a\b`, "a\nb", "\nb", "a\n", "a\tb", "é", "é'x",
	"a\xffb", "\xff", "a'b$", "#a", "a#", "~a", "a~", "-a", "a=b", "a!b", "a?b", "a*b", "a@b", "a,b",
	"", "a{b}", "{", "a;b", "a\x7fb", "a'b'c", "a'b\nc", "日本'語", "a:b", "a^b", "a|b", "a%b", "a+b",
	"a]b", "a[b", "#a'b", "a'#", "{'", "a'@", "'", "''", "a'\\b", "a'\tb", "\x01'", "e\u0301'", "\u200b'x",
	"a\xe6\x97", "\xe6\x97'", "it's a \"test\"",
}

func TestQuoteRmMatchesGNU(t *testing.T) {
	for _, locale := range []string{"C.UTF-8", "C"} {
		utf8Locale := locale == "C.UTF-8"
		want := gnuRmQuotes(t, locale, quoteNames)
		for i, name := range quoteNames {
			if got := QuoteRm(name, utf8Locale); got != want[i] {
				t.Errorf("%s: QuoteRm(%q) = %s, GNU rm says %s", locale, name, got, want[i])
			}
		}
	}
}

func TestQuoteRmMatchesGNURandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", " ", "'", "\"", "\\", "$", "\n", "\t", "\x01", "\x7f", "é", "日",
		"\xff", "\xe6", "#", "~", "{", "}", "?", "*", "[", "]", "!", "@", "%", "-", ".", ":", "=", "\u00a0"}
	var names []string
	for i := 0; i < 400; i++ {
		var b strings.Builder
		for n := 1 + r.IntN(7); n > 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if s := b.String(); !strings.Contains(s, "/") && s != "." && s != ".." {
			names = append(names, s)
		}
	}
	for _, locale := range []string{"C.UTF-8", "C"} {
		want := gnuRmQuotes(t, locale, names)
		bad := 0
		for i, name := range names {
			if got := QuoteRm(name, locale == "C.UTF-8"); got != want[i] && bad < 10 {
				bad++
				t.Errorf("%s: QuoteRm(%q) = %s, GNU rm says %s", locale, name, got, want[i])
			}
		}
	}
}

func TestUTF8Locale(t *testing.T) {
	for env, want := range map[[3]string]bool{
		{"", "", ""}:                            false,
		{"C.UTF-8", "", ""}:                     true,
		{"", "", "en_US.utf8"}:                  true,
		{"C", "", "en_US.UTF-8"}:                false, // LC_ALL wins
		{"", "en_GB.UTF-8", "C"}:                true,
		{"", "", "de_DE.ISO-8859-1"}:            false,
		{"POSIX", "en_US.UTF-8", "en_US.UTF-8"}: false,
	} {
		get := func(k string) string {
			return map[string]string{"LC_ALL": env[0], "LC_CTYPE": env[1], "LANG": env[2]}[k]
		}
		if got := UTF8Locale(get); got != want {
			t.Errorf("UTF8Locale(%q) = %v, want %v", env, got, want)
		}
	}
}
