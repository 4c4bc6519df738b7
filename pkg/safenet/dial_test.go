package safenet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testResolver answers from a table; a host with several answers gives
// the next one on each lookup and then keeps the last (DNS rebinding).
type testResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	lookups map[string]int
}

func (r *testResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := r.lookups[host]
	r.lookups[host] = n + 1
	var out []netip.Addr
	for _, s := range seq[min(n, len(seq)-1)] {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func newResolver(answers map[string][][]string) *testResolver {
	return &testResolver{answers: answers, lookups: map[string]int{}}
}

// fence keeps a test on loopback: it records every address a dial got
// as far as connecting to, lets loopback through to the sentinel server
// and stops the rest before a packet leaves.
type fence struct {
	mu     sync.Mutex
	dialed []string
}

func (f *fence) check(network, address string) error {
	f.mu.Lock()
	f.dialed = append(f.dialed, address)
	f.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err == nil && ap.Addr().Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("test fence: %s is off this machine; not dialled", address)
}

func (f *fence) saw() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

// sentinel is a server on 127.0.0.1 that counts what reaches it.
func sentinel(t *testing.T) (port string, hits *atomic.Int32) {
	hits = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "secret from the sentinel")
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u.Port(), hits
}

// ssrfCase is one way to name an address that must not be reached.
type ssrfCase struct {
	host string // as written in a URL (brackets for IPv6)
	// addr is the address the dial must be refused at (no port).
	addr string
}

// SSRFCorpus are the hosts the dialer must refuse, each with the address
// it must name. Hosts ending in .test are answered by corpusResolver.
var SSRFCorpus = []ssrfCase{
	{"127.0.0.1", "127.0.0.1"},
	{"2130706433", "127.0.0.1"},       // decimal
	{"017700000001", "127.0.0.1"},     // octal, one part
	{"0177.0.0.1", "127.0.0.1"},       // octal, dotted
	{"0x7f000001", "127.0.0.1"},       // hexadecimal
	{"0x7f.0x0.0x0.0x1", "127.0.0.1"}, // hexadecimal, dotted
	{"127.1", "127.0.0.1"},            // short
	{"127.0.1", "127.0.0.1"},          // short, three parts
	{"0x7f.1", "127.0.0.1"},           // short, mixed
	{"127.0.0.1.", "127.0.0.1"},       // trailing dot
	{"127.255.255.254", "127.255.255.254"},
	{"[::1]", "::1"},
	// IPv4-mapped: Go dials these as IPv4, so that is the address checked.
	{"[::ffff:127.0.0.1]", "127.0.0.1"},
	{"[::ffff:7f00:1]", "127.0.0.1"},
	{"[0:0:0:0:0:ffff:127.0.0.1]", "127.0.0.1"},
	{"[::127.0.0.1]", "::7f00:1"}, // IPv4-compatible
	{"0.0.0.0", "0.0.0.0"},
	{"0", "0.0.0.0"},
	{"[::]", "::"},
	{"169.254.169.254", "169.254.169.254"}, // cloud metadata
	{"2852039166", "169.254.169.254"},
	{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
	{"[::ffff:169.254.169.254]", "169.254.169.254"},
	{"[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"}, // NAT64
	{"[2002:a9fe:a9fe::]", "2002:a9fe:a9fe::"},     // 6to4
	{"[fe80::1]", "fe80::1"},
	{"[fd00:ec2::254]", "fd00:ec2::254"}, // AWS's IPv6 metadata service
	{"10.0.0.1", "10.0.0.1"},
	{"012.0.0.1", "10.0.0.1"},
	{"172.16.0.1", "172.16.0.1"},
	{"192.168.1.1", "192.168.1.1"},
	{"100.64.0.1", "100.64.0.1"},           // CGNAT
	{"100.100.100.200", "100.100.100.200"}, // Alibaba's metadata service, in CGNAT
	{"[fc00::1]", "fc00::1"},
	{"[fd12:3456::1]", "fd12:3456::1"},
	{"224.0.0.1", "224.0.0.1"},
	{"[ff02::1]", "ff02::1"},
	{"255.255.255.255", "255.255.255.255"},
	{"localhost.test", "127.0.0.1"},
	{"public-to-private.test", "10.0.0.5"},
	{"metadata.test", "169.254.169.254"},
	{"v6-loopback.test", "::1"},
	{"mapped.test", "10.0.0.1"},
	{"ula.test", "fd00::1"},
}

// corpusAnswers are the test DNS's answers for the corpus's names.
// rebind.test is public on the first lookup and loopback after.
func corpusAnswers() map[string][][]string {
	return map[string][][]string{
		"localhost.test":         {{"127.0.0.1"}},
		"public-to-private.test": {{"10.0.0.5"}},
		"metadata.test":          {{"169.254.169.254"}},
		"v6-loopback.test":       {{"::1"}},
		"mapped.test":            {{"::ffff:10.0.0.1"}},
		"ula.test":               {{"fd00::1"}},
		"rebind.test":            {{"93.184.216.34"}, {"127.0.0.1"}},
		"public.test":            {{"93.184.216.34"}},
	}
}

// openDialer is the dialer without the check: an allow list of every
// address, the same resolver and fence.
func openDialer(r Resolver, f *fence) *Dialer {
	all, _ := ParseAllowList([]string{"0.0.0.0/0", "::/0"})
	return &Dialer{Allow: all, Resolver: r, Fence: f.check, Timeout: time.Second}
}

// TestDialerRefusesTheCorpus: each case, dialled without the check,
// would connect to its address (the fence sees the dial; loopback ones
// reach the sentinel); with the check it is refused at that address,
// which the error names, and the fence never sees a dial.
func TestDialerRefusesTheCorpus(t *testing.T) {
	if len(SSRFCorpus) < 40 {
		t.Fatalf("the corpus has %d cases, fewer than 40", len(SSRFCorpus))
	}
	port, hits := sentinel(t)
	ctx := context.Background()
	for _, c := range SSRFCorpus {
		t.Run(c.host, func(t *testing.T) {
			u, err := ParseURL("http://" + c.host + ":" + port + "/")
			if err != nil {
				t.Fatal(err)
			}
			want := netip.AddrPortFrom(netip.MustParseAddr(c.addr), mustPort(port)).String()

			open := &fence{}
			conn, err := openDialer(newResolver(corpusAnswers()), open).DialContext(ctx, "tcp", u.Host)
			if conn != nil {
				conn.Close()
			}
			if got := open.saw(); len(got) == 0 || got[0] != want {
				t.Fatalf("without the check the dial went to %v, want %s (err %v)", got, want, err)
			}

			guarded := &fence{}
			d := &Dialer{Resolver: newResolver(corpusAnswers()), Fence: guarded.check, Timeout: time.Second}
			before := hits.Load()
			conn, err = d.DialContext(ctx, "tcp", u.Host)
			if conn != nil {
				conn.Close()
				t.Fatalf("connected to %s", u.Host)
			}
			var de *DeniedError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a DeniedError", err)
			}
			if de.Address != want {
				t.Errorf("refused at %s, want the dialled address %s (%v)", de.Address, want, de)
			}
			if got := guarded.saw(); len(got) > 0 {
				t.Errorf("the fence saw %v: the check let a connect through", got)
			}
			if hits.Load() != before {
				t.Error("the sentinel was reached")
			}
		})
	}
}

func mustPort(s string) uint16 {
	var p uint16
	fmt.Sscan(s, &p)
	return p
}

// TestDialerRebinding: a name that is public when checked and loopback
// when dialled. A check on a first lookup followed by a dial of the name
// reaches the sentinel; the dialer checks what it dials, so it never
// does, however many times it is asked.
func TestDialerRebinding(t *testing.T) {
	port, hits := sentinel(t)
	ctx := context.Background()

	naive := newResolver(corpusAnswers())
	ips, err := naive.LookupNetIP(ctx, "ip", "rebind.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Classify(ips[0]); !ok {
		t.Fatalf("the first answer %v should pass a check", ips)
	}
	nd := &net.Dialer{Resolver: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return nil, errors.New("no DNS here")
	}}}
	again, _ := naive.LookupNetIP(ctx, "ip", "rebind.test") // what the dial's own lookup gets
	conn, err := nd.DialContext(ctx, "tcp", netip.AddrPortFrom(again[0], mustPort(port)).String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET / HTTP/1.0\r\nHost: rebind.test\r\n\r\n")
	io.ReadAll(conn)
	conn.Close()
	if hits.Load() != 1 {
		t.Fatalf("the check-then-dial attack did not reach the sentinel (hits %d)", hits.Load())
	}

	f := &fence{}
	d := &Dialer{Resolver: newResolver(corpusAnswers()), Fence: f.check, Timeout: time.Second}
	for i := 0; i < 3; i++ {
		conn, err := d.DialContext(ctx, "tcp", "rebind.test:"+port)
		if conn != nil {
			conn.Close()
			t.Fatal("connected")
		}
		var de *DeniedError
		switch {
		case i == 0 && strings.Contains(fmt.Sprint(err), "test fence"):
			// The first lookup was public: the dial went there (the
			// fence stands for the internet).
		case errors.As(err, &de) && de.Address == "127.0.0.1:"+port:
		default:
			t.Fatalf("dial %d: %v", i, err)
		}
	}
	if hits.Load() != 1 {
		t.Error("the dialer reached the sentinel")
	}
	for _, a := range f.saw() {
		if strings.HasPrefix(a, "127.") {
			t.Errorf("the fence saw a dial of %s", a)
		}
	}
}

// TestDialerAllowList: an allowed host is dialled wherever it resolves;
// an allowed prefix lets its addresses through, whatever the name;
// nothing else is.
func TestDialerAllowList(t *testing.T) {
	port, _ := sentinel(t)
	ctx := context.Background()
	res := newResolver(map[string][][]string{"localhost.test": {{"127.0.0.1"}}, "other.test": {{"127.0.0.1"}}})
	byName, _ := ParseAllowList([]string{"localhost.test"})
	byPrefix, _ := ParseAllowList([]string{"127.0.0.0/30"})
	for _, c := range []struct {
		allow *AllowList
		host  string
		ok    bool
	}{
		{byName, "localhost.test", true},
		{byName, "other.test", false},
		{byName, "127.0.0.1", false},
		{byPrefix, "other.test", true},
		{byPrefix, "127.0.0.1", true},
		{byPrefix, "[::1]", false},
		{nil, "localhost.test", false},
	} {
		d := &Dialer{Allow: c.allow, Resolver: res}
		conn, err := d.DialContext(ctx, "tcp", c.host+":"+port)
		if conn != nil {
			conn.Close()
		}
		var de *DeniedError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v, want a connection", c.host, err)
		case !c.ok && !errors.As(err, &de):
			t.Errorf("%s: %v, want denied", c.host, err)
		}
	}
}

// TestProxyChecksTheTarget: with a proxy in the environment, a target on
// a private address is refused before the proxy is asked (it would dial
// it for us), and the proxy's own loopback address needs the allow list.
func TestProxyChecksTheTarget(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "via proxy: "+r.URL.String())
	}))
	defer proxy.Close()
	env := map[string]string{"HTTP_PROXY": proxy.URL}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()

	get := func(d *Dialer, target string) (string, error) {
		tr := &http.Transport{DialContext: d.DialContext, Proxy: d.ProxyFunc(getenv)}
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(ctx, "GET", target, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	allowProxy, _ := ParseAllowList([]string{"127.0.0.1"})
	res := newResolver(corpusAnswers())

	// The proxy itself is on loopback: refused until a person allows it.
	_, err := get(&Dialer{Resolver: res}, "http://public.test/")
	var de *DeniedError
	if !errors.As(err, &de) || de.Proxy == "" || !strings.Contains(err.Error(), "the proxy 127.0.0.1") {
		t.Fatalf("proxy on loopback: %v, want it refused as the proxy", err)
	}
	// Allowed, it carries a public target.
	body, err := get(&Dialer{Resolver: res, Allow: allowProxy}, "http://public.test/x")
	if err != nil || !strings.Contains(body, "via proxy: http://public.test/x") {
		t.Fatalf("public target through the proxy: %q, %v", body, err)
	}
	// Private targets never reach it.
	for _, target := range []string{"http://10.0.0.1/", "http://metadata.test/latest", "http://[fd00::1]/", "http://2852039166/"} {
		before := proxied.Load()
		u, _ := ParseURL(target)
		_, err := get(&Dialer{Resolver: res, Allow: allowProxy}, u.String())
		if !errors.As(err, &de) || !de.ViaProxy {
			t.Errorf("%s through the proxy: %v, want denied before the proxy", target, err)
		}
		if proxied.Load() != before {
			t.Errorf("%s reached the proxy", target)
		}
	}
}
