package safenet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseURLCanonicalHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://Example.COM./a?b#frag", "https://example.com/a?b"},
		{"example.com/x", "https://example.com/x"},
		{"localhost:8080/x", "https://localhost:8080/x"},
		{"http://2130706433/", "http://127.0.0.1/"},
		{"http://017700000001/", "http://127.0.0.1/"},
		{"http://0177.0.0.1/", "http://127.0.0.1/"},
		{"http://0x7f000001/", "http://127.0.0.1/"},
		{"http://0X7F.0X0.0X0.0X1/", "http://127.0.0.1/"},
		{"http://127.1/", "http://127.0.0.1/"},
		{"http://127.0.1:80/", "http://127.0.0.1:80/"},
		{"http://0x7f.1/", "http://127.0.0.1/"},
		{"http://0/", "http://0.0.0.0/"},
		{"http://0x/", "http://0.0.0.0/"},
		{"http://2852039166/latest", "http://169.254.169.254/latest"},
		{"http://012.0.0.1", "http://10.0.0.1/"},
		{"http://[::FFFF:127.0.0.1]:8080/", "http://[::ffff:127.0.0.1]:8080/"},
		{"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
		{"http://user:pw@host.example:0443/", "http://user:pw@host.example:443/"},
		{"HTTP://a.example", "http://a.example/"},
	} {
		u, err := ParseURL(c.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.in, err)
			continue
		}
		if u.String() != c.want {
			t.Errorf("ParseURL(%q) = %q, want %q", c.in, u.String(), c.want)
		}
	}
}

func TestParseURLRefuses(t *testing.T) {
	for _, c := range []struct{ in, why string }{
		{"", "empty"},
		{"file:///etc/passwd", `scheme "file"`},
		{"gopher://x/", `scheme "gopher"`},
		{"javascript:alert(1)", `scheme "javascript"`},
		{"mailto:a@b.example", `scheme "mailto"`},
		{"http:///path", "no host"},
		{"http://256.0.0.1/", "over 255"},
		{"http://1.2.3.4.5/", "at most 4"},
		{"http://4294967296/", "over 4294967295"},
		{"http://0x1g.1/", "not a base-16 number"},
		{"http://08.0.0.1/", "not a base-8"},
		{"http://1.2.3.09/", "not a base-8"},
		{"http://[::1/", "missing ']'"},
		{"http://[127.0.0.1]/", "invalid IP-literal"},
		{"http://[v1.x]/", "invalid host"},
		{"http://a..b/", "empty label"},
		{"http://host:99999/", "port"},
	} {
		_, err := ParseURL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseURL(%q) = %v, want an error with %q", c.in, err, c.why)
		}
	}
}

func TestParseIPv4Forms(t *testing.T) {
	want := netip.MustParseAddr("192.168.0.1")
	for _, in := range []string{"192.168.0.1", "3232235521", "0xc0a80001", "0300.0250.0.1", "192.168.1", "192.11010049", "0xc0.0xa8.0.1", "030052000001"} {
		got, err := ParseIPv4(in)
		if err != nil || got != want {
			t.Errorf("ParseIPv4(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// FuzzParseURL: no input panics; what ParseURL accepts is http or https
// with a canonical host, reads back the same, and a host that is an
// address is judged as that address.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://127.1/", "http://0x7f.1:80/a", "https://[::ffff:a9fe:a9fe]/", "example.com", "http://4294967295/", "http://0.0.0.0./", "http://a.b.c.d.0x/", "http://[fe80::1%25eth0]/", "localhost:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseURL(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("scheme %q accepted from %q", u.Scheme, raw)
		}
		host := u.Hostname()
		if host == "" {
			t.Fatalf("no host from %q", raw)
		}
		again, err := ParseURL(u.String())
		if err != nil {
			t.Fatalf("ParseURL(%q) accepted, its own form %q refused: %v", raw, u.String(), err)
		}
		if again.String() != u.String() {
			t.Fatalf("not stable: %q → %q → %q", raw, u.String(), again.String())
		}
		if canon, err := CanonicalHost(host); err != nil || canon != host {
			t.Fatalf("host %q of %q is not canonical: %q, %v", host, raw, canon, err)
		}
		if endsInNumber(host) {
			if _, err := netip.ParseAddr(host); err != nil {
				t.Fatalf("host %q ends in a number but is no address", host)
			}
		}
	})
}
