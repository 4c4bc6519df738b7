package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcode-dev/mcode/cmd"
	"github.com/mcode-dev/mcode/internal/mcptest"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestMain(m *testing.M) {
	// The rm shim is a symlink to the running binary, here the test
	// binary: run under the name rm, it is mcode's rm, as in production.
	if filepath.Base(os.Args[0]) == cmd.ShimName {
		os.Exit(cmd.Main())
	}
	testscript.Main(m, map[string]func(){
		"mcode": func() { os.Exit(cmd.MainWith(trustTestFiles)) },
		// A person at a terminal: runs a program on a pseudo-terminal and
		// answers its question.
		"ptyrun": func() { os.Exit(ptyRun()) },
		// A go-sdk MCP server for the connector scripts (MCPTEST_MODE).
		"mcptest": func() { code, _ := mcptest.Main(); os.Exit(code) },
	})
}

// homeBeside makes the script's home folder, $WORK/home, a link to a
// folder beside the work folder (with what the script's archive put in
// it): a real home is never inside the workspace, and a workspace root
// that holds the home folder is one mcode does not trust.
func homeBeside(work string) error {
	home := filepath.Join(work, "home")
	real := work + ".home"
	if err := os.MkdirAll(real, 0o755); err != nil {
		return err
	}
	if _, err := os.Lstat(home); err == nil {
		if err := os.Rename(home, real); err != nil {
			if err := os.RemoveAll(real); err != nil {
				return err
			}
			if err := os.Rename(home, real); err != nil {
				return err
			}
		}
	}
	return os.Symlink(real, home)
}

// trustTestFiles makes the scripts' own files the person's: the user
// config folder $WORK/home/.config/mcode and the system file
// $WORK/etc/mcode/config.yaml (a real process finds them itself, and
// never from a variable a caller could set).
func trustTestFiles(f *cmd.Factory) {
	f.Trusted = cmd.TrustedFiles{System: os.Getenv(testSystemConfigVar), UserDir: os.Getenv(testUserConfigDirVar)}
}

// Variables of the test binary only: the shipped binary reads neither.
const (
	testSystemConfigVar  = "MCODE_TEST_SYSTEM_CONFIG"
	testUserConfigDirVar = "MCODE_TEST_USER_CONFIG_DIR"
)

// TestScripts runs the end-to-end scripts in testdata/script against the
// real CLI.
func TestScripts(t *testing.T) {
	testscript.Run(t, ScriptParams(t, "testdata/script"))
}

// ScriptParams sets every environment variable the scripts depend on,
// so they run the same on a laptop and in CI.
func ScriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			work := e.WorkDir
			for k, v := range map[string]string{
				"HOME":            filepath.Join(work, "home"),
				"MCODE_HOME":      filepath.Join(work, "mcode-home"),
				"XDG_CONFIG_HOME": filepath.Join(work, "home", ".config"),
				"XDG_DATA_HOME":   filepath.Join(work, "home", ".local", "share"),
				"XDG_CACHE_HOME":  filepath.Join(work, "home", ".cache"),
				"CI":              "true",
				"TERM":            "dumb",
				"TZ":              "UTC",
				"LC_ALL":          "C.UTF-8",
				// The person's own config files (trustTestFiles).
				testUserConfigDirVar: filepath.Join(work, "home", ".config", "mcode"),
				testSystemConfigVar:  filepath.Join(work, "etc", "mcode", "config.yaml"),
			} {
				e.Setenv(k, v)
			}
			// A script that fails half-way leaves no background task running.
			e.Defer(func() { killTasksOf(filepath.Join(work, "mcode-home")) })
			return homeBeside(work)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "nobody" {
				return canRunAsNobody(), nil
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if cond == "shadow" { // the system keeps its password hashes in /etc/shadow
				_, err := os.Lstat("/etc/shadow")
				return err == nil, nil
			}
			if cond == "landlock" { // the Linux sandbox can run here
				return sandbox.LandlockABI() > 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    cmdExits,
			"envelope": cmdEnvelope,
			"json":     cmdJSON,
			"jsonenv":  cmdJSONEnv,
			"webserve": cmdWebServe,
		},
	}
}

// exits N PROG ARGS... runs PROG and fails unless it exits with status N
// (for mcode, see also checkExitMatchesEnvelope).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	prog, progArgs := args[1], args[2:]
	if prog == "nobody" {
		prog, progArgs = asNobody(ts, progArgs)
		args = args[1:]
	}
	got := 0
	if err := ts.Exec(prog, progArgs...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d\nstdout: %s\nstderr: %s", got, want, ts.ReadFile("stdout"), ts.ReadFile("stderr"))
	}
	checkExitMatchesEnvelope(ts, args[1:], got)
}

// canRunAsNobody reports whether a script can run a command as the user
// nobody (exits N nobody mcode …): as root, through setpriv (util-linux).
// Root passes every permission check, so only so can a script see what
// an ordinary user meets.
func canRunAsNobody() bool {
	_, err := exec.LookPath("setpriv")
	return os.Geteuid() == 0 && err == nil
}

// asNobody turns PROG ARGS into a setpriv command line that runs them as
// nobody (uid and gid 65534, no supplementary groups). The folders above
// the script's work folder and its programs are made searchable by
// others, as a user's home would be; the files in it keep their modes.
func asNobody(ts *testscript.TestScript, args []string) (string, []string) {
	if !canRunAsNobody() {
		ts.Fatalf("exits … nobody: needs root and setpriv; guard the line with [nobody]")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: exits STATUS nobody PROGRAM [ARGS...]")
	}
	prog := args[0]
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, prog); fileExists(p) {
			prog = p
			break
		}
	}
	tmp := filepath.Clean(os.TempDir())
	real, err := filepath.EvalSymlinks(prog)
	ts.Check(err)
	for _, p := range []string{ts.Getenv("WORK"), filepath.Dir(prog), filepath.Dir(real)} {
		for d := p; strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
				ts.Check(os.Chmod(d, fi.Mode().Perm()|0o011))
			}
		}
	}
	return "setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", "--", prog}, args[1:]...)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// checkExitMatchesEnvelope checks every `exits N mcode …` against the
// contract: stdout is one envelope (unless the text form was asked for)
// and the exit status is the one its error code asks for (docs/contract.md,
// "Exit codes"; bash passes its command's own status).
func checkExitMatchesEnvelope(ts *testscript.TestScript, args []string, got int) {
	if args[0] != "mcode" {
		return
	}
	if ts.Getenv("MCODE_OUTPUT") == "text" || slices.ContainsFunc(args, func(a string) bool {
		return a == "-o" || strings.HasPrefix(a, "-o=") || strings.HasPrefix(a, "--output")
	}) {
		return
	}
	if slices.Contains(args, "batch") {
		checkBatchLines(ts, got)
		return
	}
	var env struct {
		Tool  string `json:"tool"`
		Error *struct {
			Code tool.Code `json:"code"`
		} `json:"error"`
	}
	if len(args) > 1 && args[1] == "grep" && slices.ContainsFunc(args, func(a string) bool {
		return a == "-q" || a == "--quiet" || strings.Contains(a, `"quiet"`)
	}) {
		return // grep -q prints nothing (docs/contract.md): only its exit status speaks
	}
	lastEnvelope(ts) // one JSON envelope, whatever the outcome
	if json.Unmarshal([]byte(ts.ReadFile("stdout")), &env) != nil || env.Tool == "bash" {
		return
	}
	want := tool.ExitOK
	if env.Error != nil {
		want = env.Error.Code.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, but the envelope says %+v (exit %d)", got, env.Error, want)
	}
}

// checkBatchLines checks mcode batch's stdout: every line is {"id"} and a
// whole envelope, and the batch exits 0 exactly when every call is ok (1
// otherwise, 130 on a signal, 2 when the input could not be read at all).
func checkBatchLines(ts *testscript.TestScript, got int) {
	allOK := true
	lines := strings.Split(strings.TrimSuffix(ts.ReadFile("stdout"), "\n"), "\n")
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			ts.Fatalf("batch line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		_, hasID := m["id"]
		delete(m, "id")
		keys := slices.Sorted(maps.Keys(m))
		if len(lines) > 1 && !hasID || !slices.Equal(keys, envelopeKeys) {
			ts.Fatalf("batch line %d: keys %v, want id and %v", i+1, keys, envelopeKeys)
		}
		allOK = allOK && m["ok"] == true
	}
	if allOK != (got == 0) && got != tool.ExitInterrupted && got != tool.ExitUsage {
		ts.Fatalf("batch exit %d, but every call ok is %v", got, allOK)
	}
}

var envelopeKeys = []string{"archived", "continuation", "duration_ms", "error", "ok", "output", "result", "tool", "truncated"}

// lastEnvelope checks that stdout holds exactly one JSON object on one
// line, with every envelope key.
func lastEnvelope(ts *testscript.TestScript) map[string]any {
	out := ts.ReadFile("stdout")
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		ts.Fatalf("stdout is not one line of JSON: %q", out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		ts.Fatalf("stdout is not a JSON object: %v\n%s", err, out)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, envelopeKeys) {
		ts.Fatalf("envelope keys %v, want %v", keys, envelopeKeys)
	}
	return m
}

// envelope checks the last stdout is one complete envelope.
func cmdEnvelope(ts *testscript.TestScript, neg bool, args []string) {
	lastEnvelope(ts)
}

// json PATH WANT compares a field of the last envelope: PATH is dotted
// (error.code, result.lines.total, result.tools.0.name); WANT is the
// string itself for strings, else the JSON text (true, 3, null).
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: json PATH WANT")
	}
	got := jsonField(ts, args[0])
	if (got == args[1]) == neg {
		ts.Fatalf("json %s = %s, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// jsonenv VAR PATH sets VAR to a field of the last envelope (an approval
// id to pass on).
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonenv VAR PATH")
	}
	ts.Setenv(args[0], jsonField(ts, args[1]))
}

// jsonField is a field of the last envelope: the string itself, else its
// JSON text.
func jsonField(ts *testscript.TestScript, path string) string {
	var v any = lastEnvelope(ts)
	for _, part := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = node[part]; !ok {
				ts.Fatalf("json: no key %q in %s", part, path)
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) {
				ts.Fatalf("json: no index %q in %s (length %d)", part, path, len(node))
			}
			v = node[i]
		default:
			ts.Fatalf("json: %s: cannot index %T with %q", path, v, part)
		}
	}
	got, ok := v.(string)
	if !ok {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		got = strings.TrimSpace(buf.String())
	}
	return got
}

// webserve DIR serves the script's folder DIR on 127.0.0.1 until the
// script ends, as $WEB (http://127.0.0.1:PORT) and $WEBPORT, and logs
// each request's method and path to $WORK/web.log. Beside the files:
// /redirect?to=URL answers 302 to URL; /etag answers 304 to its ETag.
func cmdWebServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webserve DIR")
	}
	files := http.FileServer(http.Dir(ts.MkAbs(args[0])))
	logPath := ts.MkAbs("web.log")
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.RequestURI())
			f.Close()
		}
		mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			w.Header().Set("Location", r.URL.Query().Get("to"))
			w.WriteHeader(http.StatusFound)
		case "/etag":
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprintln(w, "version one")
		default:
			files.ServeHTTP(w, r)
		}
	}))
	ts.Defer(srv.Close)
	u, _ := url.Parse(srv.URL)
	ts.Setenv("WEB", srv.URL)
	ts.Setenv("WEBPORT", u.Port())
}
