package exec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textenc"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// numbered returns "1\n2\n…n\n".
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.Bytes()
}

func viewOf(all []byte, spool int64) outputView {
	return outputView{
		Head: all[:min(len(all), OutputCap)], Tail: all[max(0, len(all)-OutputCap):],
		Bytes: int64(len(all)), Lines: int64(bytes.Count(all, []byte{'\n'})),
		SpoolBytes: min(int64(len(all)), spool), Path: "/data/tasks/b1/output.log",
	}
}

func TestRenderOutputFits(t *testing.T) {
	if got, cut := renderOutput(outputView{}, OutputCap); got != noOutput || cut {
		t.Errorf("empty: %q %v", got, cut)
	}
	exact := bytes.Repeat([]byte("x"), OutputCap)
	if got, cut := renderOutput(viewOf(exact, 1<<30), OutputCap); cut || len(got) != OutputCap {
		t.Errorf("exactly the cap: cut=%v len=%d", cut, len(got))
	}
}

func TestRenderOutputHeadAndTail(t *testing.T) {
	all := numbered(100000)
	got, cut := renderOutput(viewOf(all, 1<<30), OutputCap)
	if !cut {
		t.Fatal("not truncated")
	}
	if len(got) > OutputCap {
		t.Errorf("output is %d bytes, over the %d cap", len(got), OutputCap)
	}
	head, rest, ok := strings.Cut(got, "\n[… ")
	if !ok {
		t.Fatalf("no marker in %q…", got[:200])
	}
	marker, tail, _ := strings.Cut(rest, "…]\n")
	if !strings.HasPrefix(head, "1\n2\n") || !strings.HasSuffix(tail, "99999\n100000\n") {
		t.Errorf("head %q… tail …%q", head[:10], tail[len(tail)-20:])
	}
	if headShare := float64(len(head)+1) / OutputCap; headShare > 0.46 || headShare < 0.40 {
		t.Errorf("head is %.0f%% of the cap, want about %d%%", headShare*100, HeadPercent)
	}
	// The marker's counts are exact: everything not shown.
	shownLines := strings.Count(head+"\n", "\n") + strings.Count(tail, "\n") - 1
	wantLines := 100000 - shownLines
	wantBytes := len(all) - len(head) - 1 - len(tail)
	want := fmt.Sprintf("%d lines, %s omitted; the full output is in /data/tasks/b1/output.log ", wantLines, fsutil.HumanBytes(int64(wantBytes)))
	if marker != want {
		t.Errorf("marker %q\nwant   %q", marker, want)
	}
}

func TestRenderOutputSpoolCapped(t *testing.T) {
	all := numbered(300000)
	got, _ := renderOutput(viewOf(all, 1<<20), OutputCap)
	if !strings.Contains(got, "/data/tasks/b1/output.log keeps the first 1.0 MiB of it") {
		t.Errorf("marker does not say the spool was capped: %q", got[strings.Index(got, "[…"):][:150])
	}
}

func TestRenderOutputSplitsNoRune(t *testing.T) {
	all := bytes.Repeat([]byte("é"), OutputCap) // two bytes each, no newline
	got, cut := renderOutput(viewOf(all, 1<<30), OutputCap)
	if !cut || !utf8.ValidString(got) || strings.Contains(got, "\uFFFD") {
		t.Errorf("cut=%v, a rune was split: %q", cut, got[len(got)-20:])
	}
}

// TestRenderOutputStaysWithinTheLimit: each invalid UTF-8 byte becomes a
// 3-byte U+FFFD, so the text of a Latin-1 or binary output can be longer
// than its bytes; it is cut all the same.
func TestRenderOutputStaysWithinTheLimit(t *testing.T) {
	for name, all := range map[string][]byte{
		"latin-1 under the cap in bytes": bytes.Repeat([]byte("caf\xe9\n"), OutputCap/5-10),
		"binary over the cap":            bytes.Repeat([]byte("\xffa"), 3*OutputCap),
		"numbered lines":                 numbered(100000),
	} {
		for _, limit := range []int{OutputCap, OutputCap - 500} {
			got, cut := renderOutput(viewOf(all, 1<<30), limit)
			if len(got) > limit || !cut || !utf8.ValidString(got) {
				t.Errorf("%s, limit %d: %d bytes of text, cut=%v", name, limit, len(got), cut)
			}
			if !strings.Contains(got, " omitted; the full output is in ") {
				t.Errorf("%s, limit %d: no marker", name, limit)
			}
		}
	}
}

func FuzzRenderOutput(f *testing.F) {
	f.Add([]byte("a\xffb\n\x1b[31mred\r\n"), uint16(300))
	f.Add(bytes.Repeat([]byte("\xe9x"), 900), uint16(500))
	f.Fuzz(func(t *testing.T, all []byte, limit uint16) {
		n := 400 + int(limit)%2000 // room for the marker and some text
		got, cut := renderOutput(viewOf(all, 1<<30), n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Fatalf("%d bytes of text for a limit of %d (cut=%v)", len(got), n, cut)
		}
		if !cut && len(all) > 0 && got != textenc.CleanTerminal(all) {
			t.Fatalf("not cut, yet not the whole output: %q", got)
		}
	})
}

func TestConfigDefaultsAreTheConstants(t *testing.T) {
	b := config.Defaults().Bash
	if b.DefaultTimeout != DefaultTimeout || b.MaxTimeout != MaxTimeout || b.AutoBackgroundAfter != AutoBackgroundAfter ||
		b.MaxSpoolMiB != DefaultSpoolMiB || !b.TrashShim || b.EnvSanitize != "" {
		t.Errorf("config defaults %+v differ from pkg/exec's constants", b)
	}
}

func TestMakePlan(t *testing.T) {
	secs := func(f float64) *float64 { return &f }
	no := false
	cfg := config.Defaults().Bash
	noAuto := cfg
	noAuto.AutoBackgroundAfter = 0
	cases := []struct {
		name string
		p    Params
		cfg  config.Bash
		want plan
	}{
		{"default", Params{}, cfg, plan{invocation: ManagedForeground, limit: 120 * time.Second, autoAfter: 100 * time.Second, leftoverLimit: 30 * time.Minute}},
		{"short limit runs direct", Params{Timeout: secs(2)}, cfg, plan{invocation: DirectForeground, limit: 2 * time.Second, requested: 2 * time.Second, leftoverLimit: 30 * time.Minute}},
		{"cut to the maximum", Params{Timeout: secs(900)}, cfg, plan{invocation: ManagedForeground, limit: 300 * time.Second, requested: 900 * time.Second, capped: true, autoAfter: 100 * time.Second, leftoverLimit: 30 * time.Minute}},
		{"auto off by flag", Params{AutoBackground: &no}, cfg, plan{invocation: DirectForeground, limit: 120 * time.Second, leftoverLimit: 30 * time.Minute}},
		{"auto off by config", Params{}, noAuto, plan{invocation: DirectForeground, limit: 120 * time.Second, leftoverLimit: 30 * time.Minute}},
		{"keep children needs a supervisor", Params{Timeout: secs(2), KeepChildren: true}, cfg, plan{invocation: ManagedForeground, limit: 2 * time.Second, requested: 2 * time.Second, keepChildren: true, leftoverLimit: 30 * time.Minute}},
		{"background watchdog", Params{Background: true}, cfg, plan{invocation: ExplicitBackground, limit: 30 * time.Minute, leftoverLimit: 30 * time.Minute}},
		{"background with a longer timeout", Params{Background: true, Timeout: secs(3600)}, cfg, plan{invocation: ExplicitBackground, limit: time.Hour, requested: time.Hour, leftoverLimit: time.Hour}},
		{"a timeout past what a Duration holds is cut, not lost", Params{Timeout: secs(1e10)}, cfg, plan{invocation: ManagedForeground, limit: 300 * time.Second, requested: math.MaxInt64, capped: true, autoAfter: 100 * time.Second, leftoverLimit: math.MaxInt64}},
		{"background with a timeout past what a Duration holds", Params{Background: true, Timeout: secs(1e300)}, cfg, plan{invocation: ExplicitBackground, limit: math.MaxInt64, requested: math.MaxInt64, leftoverLimit: math.MaxInt64}},
		{"background with a shorter timeout", Params{Background: true, Timeout: secs(60)}, cfg, plan{invocation: ExplicitBackground, limit: time.Minute, requested: time.Minute, leftoverLimit: 30 * time.Minute}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, makePlan(c.p, c.cfg), cmp.AllowUnexported(plan{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func names(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// testEnviron has a bit of everything the modes tell apart.
var testEnviron = []string{
	"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=dumb", "XDG_RUNTIME_DIR=/run/user/1",
	"MCODE_APPROVAL=appr-1", "MCODE_GUARD_TOKEN=g", "MCODE_HOME=/data", "MCODE_ROLE=explore",
	"MCODE_PROVIDER_API_KEY=k0", "ANTHROPIC_API_KEY=k1", "INPUT_ANTHROPIC_API_KEY=k2", "OPENAI_API_KEY=k3",
	"OTEL_EXPORTER_OTLP_HEADERS=h", "AWS_SECRET_ACCESS_KEY=s", "AWS_ACCESS_KEY_ID=id", "AZURE_CLIENT_SECRET=a",
	"GOOGLE_APPLICATION_CREDENTIALS=/g.json", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=o", "ACTIONS_ID_TOKEN_REQUEST_URL=u",
	"GH_TOKEN=gh", "GITHUB_TOKEN=gt", "NPM_TOKEN=n", "DB_PASSWORD=p", "STRIPE_SECRET=st", "SSH_AUTH_SOCK=/s",
	"GIT_AUTHOR_NAME=me", "KEYBOARD=x", "MY_API_KEY=m", "ALLOWED_TOKEN=ok",
	"EDITOR=vim", "PAGER=less", "MCODE_BASH_JOB=parent",
}

func TestSanitizeEnvModes(t *testing.T) {
	layerA := []string{"MCODE_APPROVAL", "MCODE_GUARD_TOKEN"}
	scrub := []string{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "AZURE_CLIENT_SECRET",
		"GOOGLE_APPLICATION_CREDENTIALS", "INPUT_ANTHROPIC_API_KEY", "MCODE_PROVIDER_API_KEY", "OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_HEADERS"}
	strict := append(slices.Clone(scrub), "ACTIONS_ID_TOKEN_REQUEST_URL", "AWS_ACCESS_KEY_ID", "DB_PASSWORD", "GH_TOKEN", "GITHUB_TOKEN", "MY_API_KEY", "NPM_TOKEN", "SSH_AUTH_SOCK", "STRIPE_SECRET")
	sorted := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		mode string
		want []string
	}{
		{EnvOff, sorted(layerA)},
		{EnvScrub, sorted(layerA, scrub)},
		{EnvStrict, sorted(layerA, strict)},
	} {
		env, removed := sanitizeEnv(testEnviron, c.mode, []string{"ALLOWED_*"}, "")
		if diff := cmp.Diff(c.want, removed); diff != "" {
			t.Errorf("%s: removed (-want +got):\n%s", c.mode, diff)
		}
		for _, name := range removed {
			if slices.Contains(names(env), name) {
				t.Errorf("%s: %s reported removed but still set", c.mode, name)
			}
		}
		for _, keep := range []string{"PATH", "HOME", "LANG", "LC_ALL", "XDG_RUNTIME_DIR", "TERM", "MCODE_HOME", "MCODE_ROLE", "GIT_AUTHOR_NAME", "KEYBOARD", "ALLOWED_TOKEN"} {
			if !slices.Contains(names(env), keep) {
				t.Errorf("%s: %s was removed", c.mode, keep)
			}
		}
		for _, kv := range nonInteractive {
			if !slices.Contains(env, kv) {
				t.Errorf("%s: %s not set", c.mode, kv)
			}
		}
		if slices.Contains(env, "EDITOR=vim") || slices.Contains(names(env), jobMarkerVar) {
			t.Errorf("%s: the caller's EDITOR or job marker leaked: %v", c.mode, env)
		}
		if n := len(names(env)); n != len(slices.Compact(names(env))) {
			t.Errorf("%s: duplicate names in %v", c.mode, names(env))
		}
	}
}

func TestEnvModeAuto(t *testing.T) {
	for _, c := range []struct {
		configured string
		environ    []string
		want       string
	}{
		{"", nil, EnvOff},
		{"", []string{"CI=true"}, EnvScrub},
		{"", []string{"CI=1"}, EnvScrub},
		{"", []string{"GITHUB_ACTIONS=true"}, EnvScrub},
		{"", []string{"CI=false"}, EnvOff},
		{"", []string{"CI=0", "GITHUB_ACTIONS="}, EnvOff},
		{EnvOff, []string{"CI=true"}, EnvOff},
		{EnvStrict, nil, EnvStrict},
	} {
		if got := envMode(c.configured, c.environ); got != c.want {
			t.Errorf("envMode(%q, %v) = %q, want %q", c.configured, c.environ, got, c.want)
		}
	}
}

func TestSetPathFront(t *testing.T) {
	env := setPathFront([]string{"A=1", "PATH=/usr/bin"}, "/shims")
	if !slices.Contains(env, "PATH=/shims:/usr/bin") {
		t.Errorf("got %v", env)
	}
	env = setPathFront([]string{"A=1"}, "/shims")
	if !slices.Contains(env, "PATH=/shims:"+defaultPath) {
		t.Errorf("no PATH: got %v", env)
	}
}

// TestCaptureSettles: what is in the pipe when the main process exits is
// counted before the record of kept leftovers goes out.
func TestCaptureSettles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pipe's unread bytes are known on Linux")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	proctree.GrowPipe(r, pipeBufferSize)
	data := bytes.Repeat([]byte("x\n"), 20000)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	c, err := newCapture(r, filepath.Join(t.TempDir(), "spool"), 1<<30, false)
	if err != nil {
		t.Fatal(err)
	}
	go c.run()
	c.settle(10 * time.Second)
	if got := c.stats(); got.Bytes != int64(len(data)) || got.Lines != 20000 {
		t.Errorf("settled at %d bytes, %d lines; the pipe held %d", got.Bytes, got.Lines, len(data))
	}
	w.Close()
	c.finish(time.Second)
}

// TestLazySpool: a lazy capture makes no file for an output that fits in
// OutputCap (the record carries it whole), makes one with every byte once
// the output outgrows it, and makes one at once when asked (materialize).
func TestLazySpool(t *testing.T) {
	run := func(data []byte, materialize bool) (outputStats, string) {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), outputFile)
		c, err := newCapture(r, path, 1<<30, true)
		if err != nil {
			t.Fatal(err)
		}
		go c.run()
		for len(data) > 0 { // in pieces, as a command writes
			n := min(len(data), 4096)
			if _, err := w.Write(data[:n]); err != nil {
				t.Fatal(err)
			}
			data = data[n:]
		}
		if materialize {
			c.settle(10 * time.Second)
			c.materialize()
		}
		w.Close()
		c.finish(10 * time.Second)
		return c.stats(), path
	}
	small := bytes.Repeat([]byte("a line\n"), OutputCap/len("a line\n"))
	st, path := run(small, false)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a short output made its spool file: %v", err)
	}
	if !st.Unspooled || !bytes.Equal(st.Tail, small) || st.Bytes != int64(len(small)) {
		t.Errorf("short output: unspooled %v, tail of %d bytes, %d counted; want all %d in the record", st.Unspooled, len(st.Tail), st.Bytes, len(small))
	}
	v := fileView(path, &st)
	if text, truncated := renderOutput(v, OutputCap); truncated || text != string(small) {
		t.Errorf("short output rendered truncated=%v, %d bytes", truncated, len(text))
	}
	for _, tc := range []struct {
		name        string
		data        []byte
		materialize bool
	}{
		{"an output past OutputCap", numbered(20000), false},
		{"a short output asked for", small, true},
	} {
		st, path := run(tc.data, tc.materialize)
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, tc.data) || st.Unspooled || st.SpoolBytes != int64(len(tc.data)) {
			t.Errorf("%s: spool of %d bytes (%v), %d spooled, unspooled %v; want all %d", tc.name, len(got), err, st.SpoolBytes, st.Unspooled, len(tc.data))
		}
	}
}
