package safenet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// ConnectTimeout bounds one TCP connect (each address of a host in turn).
const ConnectTimeout = 10 * time.Second

// DeniedError is a connection refused because of where it would go.
type DeniedError struct {
	// Host is the host name the connection was for.
	Host string
	// Address is the address refused: the one dialled (ip:port), or for
	// a target reached through a proxy, the one its name resolved to.
	Address string
	// Why names the address range.
	Why string
	// ViaProxy: the target was to be reached through a proxy, which
	// would have dialled it.
	ViaProxy bool
	// Proxy: the refused address is the proxy's own.
	Proxy string
	// Cached: the target was judged for a copy kept in a cache, which
	// is not served.
	Cached bool
}

func (e *DeniedError) Error() string {
	switch {
	case e.Proxy != "":
		return fmt.Sprintf("the proxy %s (%s) is at %s, which is %s", e.Host, e.Proxy, e.Address, e.Why)
	case e.Cached:
		return fmt.Sprintf("%s resolves to %s, which is %s (its cached copy is not served)", e.Host, e.Address, e.Why)
	case e.ViaProxy:
		return fmt.Sprintf("%s resolves to %s, which is %s (refused before the proxy would dial it)", e.Host, e.Address, e.Why)
	case hostOf(e.Address) == e.Host:
		return fmt.Sprintf("%s is %s", e.Address, e.Why)
	}
	return fmt.Sprintf("%s was dialled at %s, which is %s", e.Host, e.Address, e.Why)
}

func hostOf(addr string) string {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		return ap.Addr().String()
	}
	return addr
}

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer connects only to public addresses, or to hosts and addresses
// the allow list names. The check runs in net.Dialer.Control, on the
// address each connect is about to use: a host name is resolved once per
// dial and every address it gave is checked as it is dialled, so a second
// lookup that answers differently (DNS rebinding) is never trusted.
type Dialer struct {
	Allow    *AllowList
	Resolver Resolver      // nil: net.DefaultResolver
	Timeout  time.Duration // per connect; 0: ConnectTimeout
	// Fence, when set, runs on every connection the check let through,
	// just before the connect: tests use it to keep every connection on
	// loopback while the check itself judges the real addresses.
	Fence func(network, address string) error
	// proxies names the proxies ProxyFunc chose, by host, so that the
	// refusal of one's address says it is the proxy.
	mu      sync.Mutex
	proxies map[string]string
}

func (d *Dialer) proxyNamed(host string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proxies[host]
}

func (d *Dialer) resolver() Resolver {
	if d.Resolver != nil {
		return d.Resolver
	}
	return net.DefaultResolver
}

// DialContext dials addr (host:port) as net.Dialer does, one address at
// a time, each through the check.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	h, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("dial %s: bad port %q", addr, portText)
	}
	host, err := CanonicalHost(h)
	if err != nil {
		return nil, err
	}
	allowed := d.Allow.Host(host)
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = d.resolver().LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = ConnectTimeout
	}
	var denied, other error
	for _, ip := range ips {
		nd := net.Dialer{Timeout: timeout, Control: d.control(host, allowed)}
		conn, err := nd.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		var de *DeniedError
		switch {
		case errors.As(err, &de):
			if denied == nil {
				denied = de
			}
		case other == nil:
			other = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if denied != nil {
		return nil, denied
	}
	return nil, other
}

// control is the check on the address a connect is about to use.
func (d *Dialer) control(host string, hostAllowed bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &DeniedError{Host: host, Address: address, Why: "not an address mcode can judge"}
		}
		if !hostAllowed && !d.Allow.Addr(ap.Addr()) {
			if why, ok := Classify(ap.Addr()); !ok {
				return &DeniedError{Host: host, Address: address, Why: why, Proxy: d.proxyNamed(host)}
			}
		}
		if d.Fence != nil {
			return d.Fence(network, address)
		}
		return nil
	}
}

// CheckHost resolves a host that something else will dial (a proxy) and
// refuses it unless every address is public, or the host is allowed.
func (d *Dialer) CheckHost(ctx context.Context, host string) error {
	host, err := CanonicalHost(host)
	if err != nil {
		return err
	}
	if d.Allow.Host(host) {
		return nil
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = d.resolver().LookupNetIP(ctx, "ip", host); err != nil {
		return err
	}
	for _, ip := range ips {
		if d.Allow.Addr(ip) {
			continue
		}
		if why, ok := Classify(ip); !ok {
			return &DeniedError{Host: host, Address: ip.String(), Why: why, ViaProxy: true}
		}
	}
	return nil
}

// ProxyFunc is an http.Transport's Proxy: the proxy the environment names
// for a request (HTTP_PROXY, HTTPS_PROXY and NO_PROXY, or their lower-case
// forms, read with getenv), used only when the target passes CheckHost —
// the proxy would dial the target itself, out of the Control hook's
// reach. The proxy's own address goes through the hook like any other:
// one on this machine's networks needs its host in the allow list.
func (d *Dialer) ProxyFunc(getenv func(string) string) func(*http.Request) (*url.URL, error) {
	env := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := httpproxy.Config{
		HTTPProxy:  env("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: env("HTTPS_PROXY", "https_proxy"),
		NoProxy:    env("NO_PROXY", "no_proxy"),
	}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		return nil
	}
	choose := cfg.ProxyFunc()
	return func(req *http.Request) (*url.URL, error) {
		p, err := choose(req.URL)
		if err != nil || p == nil {
			return p, err
		}
		if err := d.CheckHost(req.Context(), req.URL.Hostname()); err != nil {
			return nil, err
		}
		if host, err := CanonicalHost(p.Hostname()); err == nil {
			d.mu.Lock()
			if d.proxies == nil {
				d.proxies = map[string]string{}
			}
			d.proxies[host] = p.Redacted()
			d.mu.Unlock()
		}
		return p, nil
	}
}
