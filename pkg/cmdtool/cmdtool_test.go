package cmdtool

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestExpandArgv(t *testing.T) {
	args := map[string]any{"path": "a b; rm -rf /", "n": 3, "flags": []any{"-x", "-y"}, "empty": ""}
	got := expandArgv([]string{"prog", "{{path}}", "--n={{ n }}", "{{flags}}", "{{missing}}", "x{{missing}}y", "{{empty}}", "{{"}, args)
	want := []string{"prog", "a b; rm -rf /", "--n=3", "-x", "-y", "xy", "", "{{"}
	if !slices.Equal(got, want) {
		t.Fatalf("argv %q, want %q", got, want)
	}
}

func TestPlaceholders(t *testing.T) {
	if got := placeholders("{{a}}-{{ b }}{{}}{{c"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("placeholders %q", got)
	}
}

func FuzzExpandArgv(f *testing.F) {
	f.Add("{{a}}", "value")
	f.Add("pre{{ a }}post{{a}}", "v{{a}}")
	f.Add("{{a", "x")
	f.Fuzz(func(t *testing.T, arg, value string) {
		out := expandArgv([]string{arg}, map[string]any{"a": value})
		if len(placeholders(arg)) == 0 {
			if !slices.Equal(out, []string{arg}) {
				t.Fatalf("%q changed to %q without a placeholder", arg, out)
			}
			return
		}
		if field, whole := onlyPlaceholder(arg); whole && field != "a" {
			if len(out) != 0 {
				t.Fatalf("%q (an absent field alone) gave %q, want nothing", arg, out)
			}
			return
		}
		if len(out) != 1 {
			t.Fatalf("%q gave %d elements", arg, len(out))
		}
		// Where the only braces are whole {{a}}, expansion is a plain
		// replacement: a value is never expanded again.
		rest := strings.ReplaceAll(arg, "{{a}}", "")
		if !strings.Contains(rest, "{") && !strings.Contains(rest, "}") {
			if want := strings.ReplaceAll(arg, "{{a}}", value); out[0] != want {
				t.Fatalf("%q with %q gave %q, want %q", arg, value, out[0], want)
			}
		}
	})
}

// TestStreamBoundsMemoryAndSpools: a stream far over the kept size keeps
// its head and tail in memory and the whole in the spool file.
func TestStreamBoundsMemoryAndSpools(t *testing.T) {
	dir := t.TempDir()
	s := newStream(1000, 300, dir, "t")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	go func() {
		for i := 0; i < 5000; i++ {
			line := []byte(strings.Repeat(string(rune('a'+i%26)), 9) + "\n")
			all.Write(line)
			w.Write(line)
		}
		w.Close()
	}()
	s.drain(r)
	if s.total != 50000 || len(s.head) != 1000 || len(s.tail) != 300 {
		t.Fatalf("total %d head %d tail %d", s.total, len(s.head), len(s.tail))
	}
	spooled, err := os.ReadFile(s.spoolPath)
	if err != nil || !bytes.Equal(spooled, all.Bytes()) {
		t.Fatalf("spool %d bytes (%v), want the whole %d", len(spooled), err, all.Len())
	}
	text, truncated := s.shown(600)
	if !truncated || !strings.Contains(text, "omitted of 48.8 KiB") || !strings.HasSuffix(text, string(all.Bytes()[all.Len()-300:])) {
		t.Fatalf("shown %q", text)
	}
}

func TestParseJSONWholeValueOnly(t *testing.T) {
	for in, ok := range map[string]bool{`{"a":1}`: true, " [1,2]\n": true, `{"a":1} trailing`: false, `{"a":1}{"b":2}`: false, `"str"`: false, `42`: false, ``: false} {
		if got := parseJSON([]byte(in)) != nil; got != ok {
			t.Errorf("%q: parsed %v, want %v", in, got, ok)
		}
	}
}
