package safenet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		addr string
		why  string // "" for public
	}{
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.216.34", ""},
		{"2606:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"::1", "loopback"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"10.1.2.3", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"172.32.0.1", ""},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"100.64.0.1", "CGNAT"},
		{"100.100.100.200", "CGNAT"},
		{"100.128.0.1", ""},
		{"fc00::1", "unique-local"},
		{"fd00:ec2::254", "unique-local"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"::ffff:127.0.0.1", "IPv4-mapped form of 127.0.0.1, loopback"},
		{"::ffff:169.254.169.254", "IPv4-mapped form of 169.254.169.254, link-local"},
		{"::ffff:10.0.0.1", "IPv4-mapped form of 10.0.0.1, private"},
		{"::127.0.0.1", "IPv4-compatible"},
		{"64:ff9b::a9fe:a9fe", "NAT64 form of 169.254.169.254"},
		{"2002:7f00:1::", "6to4 form of 127.0.0.1"},
		{"2001::1", "Teredo"},
		{"2001:db8::1", "documentation"},
		{"fec0::1", "site-local"},
	} {
		why, ok := Classify(netip.MustParseAddr(c.addr))
		if c.why == "" {
			if !ok {
				t.Errorf("Classify(%s) refused (%s), want public", c.addr, why)
			}
			continue
		}
		if ok || !strings.Contains(why, c.why) {
			t.Errorf("Classify(%s) = %q, %v; want refused with %q", c.addr, why, ok, c.why)
		}
	}
}

func TestAllowList(t *testing.T) {
	a, err := ParseAllowList([]string{"127.0.0.1", "Intranet.Example.", "*.corp.example", "10.1.0.0/16", "[::1]"})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"127.0.0.1": true, "intranet.example": true, "a.corp.example": true, "corp.example": false,
		"10.1.2.3": true, "10.2.0.1": false, "::1": true, "example.com": false, "xcorp.example": false,
	} {
		if got := a.Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
	if !a.Addr(netip.MustParseAddr("::ffff:127.0.0.1")) {
		t.Error("the mapped form of an allowed address is not allowed")
	}
	for _, bad := range []string{"", "http://x.example/", "x.example:8080", "10.0.0.0/33", "*.10.0.0.1", "a b"} {
		if err := CheckAllowEntry(bad); err == nil {
			t.Errorf("CheckAllowEntry(%q) accepted", bad)
		}
	}
}
