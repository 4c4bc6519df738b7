package approval

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func request(t *testing.T, s *Store, digest string) *Record {
	t.Helper()
	r, err := s.Request(Record{Tool: "bash", Digest: digest, Args: []byte(`{"command":"rm -rf ~"}`), Rule: "built-in: rm_root"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func code(err error) string {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func TestRoundTripIsSingleUse(t *testing.T) {
	s := Open(t.TempDir(), time.Hour, nil)
	r := request(t, s, "sha256:a")
	if again := request(t, s, "sha256:a"); again.ID != r.ID {
		t.Errorf("the same call asked twice got two ids: %s %s", r.ID, again.ID)
	}
	if _, err := s.Redeem(r.ID, "sha256:a"); code(err) != "pending" {
		t.Errorf("redeem before approval: %v", err)
	}
	if _, err := s.Decide(r.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decide(r.ID, false); code(err) != "granted" {
		t.Errorf("deny after grant: %v", err)
	}
	if _, err := s.Redeem(r.ID, "sha256:other"); code(err) != "mismatch" {
		t.Errorf("redeem for another call: %v", err)
	}
	if _, err := s.Redeem(r.ID, "sha256:a"); err != nil {
		t.Fatalf("redeem: %v", err)
	}
	if _, err := s.Redeem(r.ID, "sha256:a"); code(err) != "used" {
		t.Errorf("second redeem: %v", err)
	}
	if next := request(t, s, "sha256:a"); next.ID == r.ID {
		t.Error("a used approval was handed out again")
	}
}

func TestDeniedAndExpiredAndUnknown(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := Open(t.TempDir(), time.Hour, func() time.Time { return now })
	r := request(t, s, "sha256:d")
	s.Decide(r.ID, false)
	if _, err := s.Redeem(r.ID, "sha256:d"); code(err) != "denied" {
		t.Errorf("denied: %v", err)
	}
	r = request(t, s, "sha256:e")
	s.Decide(r.ID, true)
	now = now.Add(61 * time.Minute)
	if _, err := s.Redeem(r.ID, "sha256:e"); code(err) != "expired" {
		t.Errorf("expired: %v", err)
	}
	if got, _ := s.Get(r.ID); got.Status != Expired {
		t.Errorf("shown as %s", got.Status)
	}
	if _, err := s.Redeem("apr_00000000000000ff", "x"); code(err) != "unknown" {
		t.Errorf("unknown: %v", err)
	}
	for _, bad := range []string{"../../etc/passwd", "apr_XYZ", "apr_0123456789ABCDEF", ""} {
		if _, err := s.Decide(bad, true); code(err) != "invalid" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestRedeemAcrossProcesses: ten processes race to use one approval;
// exactly one runs.
func TestRedeemAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("APPROVAL_CHILD_DIR"); dir != "" {
		s := Open(dir, time.Hour, nil)
		if _, err := s.Redeem(os.Getenv("APPROVAL_CHILD_ID"), "sha256:race"); err == nil {
			fmt.Println("REDEEMED")
		} else {
			fmt.Println("REFUSED", code(err))
		}
		return
	}
	dir := t.TempDir()
	s := Open(dir, time.Hour, nil)
	r := request(t, s, "sha256:race")
	if _, err := s.Decide(r.ID, true); err != nil {
		t.Fatal(err)
	}
	const n = 10
	outs := make([]*strings.Builder, n)
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestRedeemAcrossProcesses$")
		cmds[i].Env = append(os.Environ(), "APPROVAL_CHILD_DIR="+dir, "APPROVAL_CHILD_ID="+r.ID)
		outs[i] = &strings.Builder{}
		cmds[i].Stdout = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	redeemed, refused := 0, 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
		switch {
		case strings.Contains(outs[i].String(), "REDEEMED"):
			redeemed++
		case strings.Contains(outs[i].String(), "REFUSED used"):
			refused++
		default:
			t.Errorf("child %d: %s", i, outs[i])
		}
	}
	if redeemed != 1 || refused != n-1 {
		t.Errorf("redeemed %d times, refused %d, want 1 and %d", redeemed, refused, n-1)
	}
}
