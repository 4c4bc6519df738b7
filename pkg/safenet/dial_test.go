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
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/ssrftest"
)

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

// openDialer is the dialer without the check: an allow list of every
// address, the same resolver and fence.
func openDialer(r Resolver, f *ssrftest.Fence) *Dialer {
	all, _ := ParseAllowList([]string{"0.0.0.0/0", "::/0"})
	return &Dialer{Allow: all, Resolver: r, Fence: f.Check, Timeout: time.Second}
}

// TestDialerRefusesTheCorpus: each case, dialled without the check,
// would connect to its address (the fence sees the dial; loopback ones
// reach the sentinel); with the check it is refused at that address,
// which the error names, and the fence never sees a dial.
func TestDialerRefusesTheCorpus(t *testing.T) {
	if len(ssrftest.Corpus) < 40 {
		t.Fatalf("the corpus has %d cases, fewer than 40", len(ssrftest.Corpus))
	}
	port, hits := sentinel(t)
	ctx := context.Background()
	for _, c := range ssrftest.Corpus {
		t.Run(c.Host, func(t *testing.T) {
			u, err := ParseURL("http://" + c.Host + ":" + port + "/")
			if err != nil {
				t.Fatal(err)
			}
			want := netip.AddrPortFrom(netip.MustParseAddr(c.Addr), mustPort(port)).String()

			open := &ssrftest.Fence{}
			conn, err := openDialer(ssrftest.NewResolver(ssrftest.Answers()), open).DialContext(ctx, "tcp", u.Host)
			if conn != nil {
				conn.Close()
			}
			if got := open.Saw(); len(got) == 0 || got[0] != want {
				t.Fatalf("without the check the dial went to %v, want %s (err %v)", got, want, err)
			}

			guarded := &ssrftest.Fence{}
			d := &Dialer{Resolver: ssrftest.NewResolver(ssrftest.Answers()), Fence: guarded.Check, Timeout: time.Second}
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
			if got := guarded.Saw(); len(got) > 0 {
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

	naive := ssrftest.NewResolver(ssrftest.Answers())
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

	f := &ssrftest.Fence{}
	d := &Dialer{Resolver: ssrftest.NewResolver(ssrftest.Answers()), Fence: f.Check, Timeout: time.Second}
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
	for _, a := range f.Saw() {
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
	res := ssrftest.NewResolver(map[string][][]string{"localhost.test": {{"127.0.0.1"}}, "other.test": {{"127.0.0.1"}}})
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
	res := ssrftest.NewResolver(ssrftest.Answers())

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
