package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

const linesPerChild = 200

// TestConcurrentProcessesLoseAndTearNothing: 20 processes append 200
// lines each, with arguments long enough to cross page boundaries; every
// line arrives whole.
func TestConcurrentProcessesLoseAndTearNothing(t *testing.T) {
	if dir := os.Getenv("AUDIT_CHILD_DIR"); dir != "" {
		l := Open(dir, 64, nil)
		child := os.Getenv("AUDIT_CHILD")
		pad := strings.Repeat("x", 3000)
		for i := 0; i < linesPerChild; i++ {
			args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("echo %s %d %s", child, i, pad)})
			if err := l.Append(Entry{Time: time.Now(), Tool: "bash", Args: args, Decision: "allow", Status: "ok"}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
		return
	}
	dir := t.TempDir()
	const n = 20
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestConcurrentProcessesLoseAndTearNothing$")
		cmds[i].Env = append(os.Environ(), "AUDIT_CHILD_DIR="+dir, "AUDIT_CHILD="+strconv.Itoa(i))
		cmds[i].Stderr = os.Stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
	}
	f, err := os.Open(Open(dir, 64, nil).Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("torn line: %v: %.120q", err, sc.Bytes())
		}
		var args map[string]string
		json.Unmarshal(e.Args, &args)
		key := strings.Join(strings.Fields(args["command"])[1:3], " ")
		if seen[key] {
			t.Fatalf("line %s twice", key)
		}
		seen[key] = true
	}
	if len(seen) != n*linesPerChild {
		t.Errorf("%d lines, want %d", len(seen), n*linesPerChild)
	}
}

func TestRotationAndFilters(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := Open(dir, 1, func() time.Time { return now })
	big := strings.Repeat("y", 6000)
	for i := 0; i < 300; i++ { // ~1.8 MiB: one rotation
		decision := "allow"
		if i%10 == 0 {
			decision = "deny"
		}
		now = now.Add(time.Minute)
		args, _ := json.Marshal(map[string]any{"i": i, "pad": big})
		c := &dispatch.Call{Request: dispatch.Request{Tool: "bash", Args: args}, Profile: tool.Profile{Agent: "default"}}
		l.Record(c, dispatch.Decision{Verdict: dispatch.Verdict(decision), Source: "rule"}, &tool.Envelope{OK: true})
	}
	if _, err := os.Stat(l.Path + ".1"); err != nil {
		t.Fatalf("no rotation: %v", err)
	}
	if fi, _ := os.Stat(l.Path); fi.Size() > 1<<20 {
		t.Errorf("the log is %d bytes, over its 1 MiB", fi.Size())
	}
	all, bad, err := l.Read(Filter{})
	if err != nil || bad != 0 {
		t.Fatal(err, bad)
	}
	if len(all) < 150 {
		t.Errorf("%d entries read back across the rotation", len(all))
	}
	denied, _, _ := l.Read(Filter{Decision: "deny", Limit: 5})
	if len(denied) != 5 || denied[4].Decision != "deny" || !denied[4].Time.Equal(now.Add(-9*time.Minute)) {
		t.Errorf("newest 5 denials: %+v", denied)
	}
	recent, _, _ := l.Read(Filter{Since: now.Add(-30 * time.Minute)})
	if len(recent) != 31 {
		t.Errorf("since 30 minutes: %d entries", len(recent))
	}
}

func TestSecretsAreMaskedInArguments(t *testing.T) {
	l := Open(t.TempDir(), 64, nil)
	args := []byte(`{"command":"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE aws s3 ls","content":"password = hunter2hunter2"}`)
	l.Record(&dispatch.Call{Request: dispatch.Request{Tool: "bash", Args: args}}, dispatch.Decision{Verdict: dispatch.Allow}, &tool.Envelope{OK: true})
	data, _ := os.ReadFile(l.Path)
	if strings.Contains(string(data), "AKIAIOSFODNN7EXAMPLE") || strings.Contains(string(data), "hunter2") {
		t.Errorf("a secret reached the audit log: %s", data)
	}
	if !strings.Contains(string(data), "[REDACTED]") || !strings.Contains(string(data), "aws s3 ls") {
		t.Errorf("masked too much or nothing: %s", data)
	}
}
