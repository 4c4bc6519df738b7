package approval

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// testKey seals the approvals of these tests (a person's own key lives
// in their config folder).
var testKey = []byte("0123456789abcdef0123456789abcdef")

func sealed(s *Store) *Store {
	s.Key = testKey
	return s
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
	s := sealed(Open(t.TempDir(), time.Hour, nil))
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
	s := sealed(Open(t.TempDir(), time.Hour, func() time.Time { return now }))
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
		s := sealed(Open(dir, time.Hour, nil))
		if _, err := s.Redeem(os.Getenv("APPROVAL_CHILD_ID"), "sha256:race"); err == nil {
			fmt.Println("REDEEMED")
		} else {
			fmt.Println("REFUSED", code(err))
		}
		return
	}
	dir := t.TempDir()
	s := sealed(Open(dir, time.Hour, nil))
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

// A record that a command wrote or edited, or copied into another
// MCODE_HOME, grants nothing: only a person's sealed answer does.
func TestForgedAndMovedApprovalsGrantNothing(t *testing.T) {
	s := sealed(Open(t.TempDir(), time.Hour, nil))
	// Shown to work without the seal: the file is the approval.
	r := request(t, s, "sha256:f")
	data, err := os.ReadFile(s.path(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `"status": "pending"`, `"status": "granted"`, 1)
	if err := os.WriteFile(s.path(r.ID), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Redeem(r.ID, "sha256:f"); code(err) != "forged" {
		t.Errorf("sed on the record: %v", err)
	}
	// A sealed grant copied into another store.
	r = request(t, s, "sha256:g")
	if _, err := s.Decide(r.ID, true); err != nil {
		t.Fatal(err)
	}
	other := sealed(Open(t.TempDir(), time.Hour, nil))
	os.MkdirAll(other.Dir, 0o700)
	data, _ = os.ReadFile(s.path(r.ID))
	os.WriteFile(other.path(r.ID), data, 0o600)
	if _, err := other.Redeem(r.ID, "sha256:g"); code(err) != "forged" {
		t.Errorf("a grant copied into another MCODE_HOME: %v", err)
	}
	// Sealed with another key: another person's, or one the caller made.
	wrongKey := Open(filepath.Dir(s.Dir), time.Hour, nil)
	wrongKey.Key = []byte("another key, another key, another")
	if _, err := wrongKey.Redeem(r.ID, "sha256:g"); code(err) != "forged" {
		t.Errorf("another key: %v", err)
	}
	if _, err := s.Redeem(r.ID, "sha256:g"); err != nil {
		t.Errorf("the real grant: %v", err)
	}
	// Without a key nothing can be decided.
	keyless := Open(t.TempDir(), time.Hour, nil)
	r = request(t, keyless, "sha256:h")
	if _, err := keyless.Decide(r.ID, true); !errors.Is(err, ErrNoKey) {
		t.Errorf("decide without a key: %v", err)
	}
}

// A trust approval lasts until the definition changes and never expires.
func TestTrustIsKeptForTheDefinition(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := sealed(Open(t.TempDir(), time.Hour, func() time.Time { return now }))
	r, err := s.Request(Record{Kind: KindTrust, Tool: "trust mcp server docs", Digest: "sha256:def1"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Trusted("sha256:def1") {
		t.Fatal("trusted before a person answered")
	}
	if _, err := s.Decide(r.ID, true); err != nil {
		t.Fatal(err)
	}
	now = now.Add(1000 * time.Hour)
	if !s.Trusted("sha256:def1") || s.Trusted("sha256:def2") {
		t.Errorf("trusted def1 %v def2 %v", s.Trusted("sha256:def1"), s.Trusted("sha256:def2"))
	}
	if _, err := s.Redeem(r.ID, "sha256:def1"); code(err) != "invalid" {
		t.Errorf("a trust approval redeemed as a call: %v", err)
	}
}

func TestKeyIsMadeOnceAndKept(t *testing.T) {
	dir := t.TempDir() + "/person"
	if k, err := LoadKey(dir, false); k != nil || err != nil {
		t.Errorf("no key yet: %x %v", k, err)
	}
	k1, err := LoadKey(dir, true)
	if err != nil || len(k1) != 32 {
		t.Fatalf("made %x %v", k1, err)
	}
	if fi, _ := os.Stat(dir + "/" + KeyFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	k2, _ := LoadKey(dir, true)
	if string(k1) != string(k2) {
		t.Error("a second call made another key")
	}
	os.WriteFile(dir+"/"+KeyFile, []byte("zz"), 0o600)
	if _, err := LoadKey(dir, false); err == nil {
		t.Error("a damaged key was taken")
	}
}
