package artifact

import (
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestParseIntegrityForms(t *testing.T) {
	data := []byte("hello\n")
	sha256hex := hex256(data)
	for _, s := range []string{
		sri512(data),
		"sha256:" + sha256hex,
		"SHA256:" + strings.ToUpper(sha256hex),
		sri512(data) + "?opt=1",
		"sha512-" + strings.Repeat("A", 86) + "== " + sri512(data), // several: any one matching passes
		"sha256:" + strings.Repeat("0", 64) + "\n" + "sha256:" + sha256hex,
	} {
		in, err := ParseIntegrity(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		h := NewHasher(in)
		h.Write(data)
		if _, err := h.Match("f"); err != nil {
			t.Errorf("%q does not match %q: %v", s, data, err)
		}
		h = NewHasher(in)
		h.Write([]byte("hellO\n"))
		if _, err := h.Match("f"); err == nil {
			t.Errorf("%q matches other data", s)
		}
	}
}

func TestParseIntegrityRefuses(t *testing.T) {
	for s, why := range map[string]string{
		"":                                     "empty",
		"sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00=":    "too weak",
		"md5:d41d8cd98f00b204e9800998ecf8427e": "too weak",
		"sha256:zz":                            "not hexadecimal",
		"sha256:abcd":                          "has 32 bytes",
		"sha999-AAAA":                          "unknown algorithm",
		"sha512-!!!":                           "not base64",
		"deadbeef":                             "neither",
	} {
		_, err := ParseIntegrity(s)
		te := wantCode(t, err, tool.CodeUsage)
		if !strings.Contains(te.Message, why) {
			t.Errorf("%q: message %q lacks %q", s, te.Message, why)
		}
	}
}

func TestMismatchNamesBothHashesInTheFormGiven(t *testing.T) {
	in := mustIntegrity(t, "sha256:"+strings.Repeat("ab", 32))
	h := NewHasher(in)
	h.Write([]byte("x"))
	_, err := h.Match("pkg.tgz")
	te := wantCode(t, err, tool.CodeChecksumMismatch)
	if !strings.Contains(te.Message, "sha256:"+hex256([]byte("x"))) || !strings.Contains(te.Message, "expected sha256:abab") {
		t.Errorf("message %q", te.Message)
	}
}

func TestVerifyFile(t *testing.T) {
	dir := t.TempDir()
	data := []byte(strings.Repeat("data", 100000))
	p := writeFile(t, dir, "f", data)
	d, n, err := VerifyFile(p, mustIntegrity(t, sri512(data)))
	if err != nil || n != int64(len(data)) || d.SRI() != sri512(data) {
		t.Fatalf("VerifyFile = %v, %d, %v", d, n, err)
	}
	_, _, err = VerifyFile(p, mustIntegrity(t, sri512([]byte("other"))))
	wantCode(t, err, tool.CodeChecksumMismatch)
}
