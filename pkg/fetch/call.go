package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/safenet"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// call is one fetch in progress.
type call struct {
	opts     Options
	env      *tool.Env
	params   Params
	url      *url.URL
	maxBytes int64
	deadline time.Time
	allow    *safenet.AllowList
	notes    []string
}

func (c *call) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// convertReserve is the part of the time limit kept for making the text
// once the body is in: the network gets the rest.
func convertReserve(limit time.Duration) time.Duration {
	return min(2*time.Second, limit/5)
}

// do serves the call from the cache when it may, else from the network.
func (c *call) do(ctx context.Context) (*tool.Response, error) {
	cache := c.cache()
	if c.url.User != nil && !c.params.NoCache {
		c.note("not cached: the URL carries credentials")
	}
	var entry *cacheEntry
	if cache != nil {
		entry = cache.load(c.url)
		if entry != nil && entry.fresh(now(c.env)) && entry.Bytes <= c.maxBytes {
			// The policy may have changed since the page was kept: the
			// chain is judged again as a request would be.
			err := c.checkCached(ctx, entry)
			if err == nil {
				var resp *tool.Response
				if resp, err = c.respond(ctx, &document{entry: *entry, cache: cache, state: CacheHit}); !errors.Is(err, errCacheDamaged) {
					return resp, err
				}
				cache.drop(c.url)
				entry = nil
			} else if !errors.Is(err, errAskNetwork) {
				return nil, err
			}
		}
		if entry != nil && entry.Bytes > c.maxBytes {
			entry = nil // it would have to be cut: fetch it again
		}
	}
	netDeadline := c.deadline.Add(-convertReserve(time.Until(c.deadline)))
	netCtx, cancel := context.WithDeadline(ctx, netDeadline)
	defer cancel()
	cl := c.client()
	defer cl.close()
	resp, hops, err := cl.get(netCtx, c.url, entry)
	if err != nil {
		return nil, c.networkError(ctx, netCtx, err, hops)
	}
	defer resp.Body.Close()

	doc := &document{state: CacheOff, cache: cache}
	doc.entry = cacheEntry{
		URL: redact(c.url), FinalURL: redact(resp.Request.URL), Status: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), Redirects: hops,
		ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		Fetched: now(c.env).UTC(),
	}
	if resp.StatusCode == http.StatusNotModified && entry != nil {
		entry.Fetched = doc.entry.Fetched
		entry.Redirects = hops
		cache.touch(c.url, entry)
		resp, err := c.respond(ctx, &document{entry: *entry, cache: cache, state: CacheRevalidated})
		if errors.Is(err, errCacheDamaged) {
			cache.drop(c.url)
			return c.do(ctx)
		}
		return resp, err
	}
	bodyMax := c.maxBytes
	if resp.StatusCode >= 400 && bodyMax > MaxErrorBodyBytes {
		// Only the start of an error page is shown: a huge one is not
		// read (nor converted) to the max_bytes bound.
		bodyMax = MaxErrorBodyBytes
	}
	b, err := readBody(netCtx, resp, bodyMax)
	if err != nil {
		return nil, c.networkError(ctx, netCtx, err, hops)
	}
	doc.body = b.data
	doc.entry.Bytes = int64(len(b.data))
	doc.entry.Kind, doc.entry.MIME = classify(doc.entry.ContentType, head(b.data))
	doc.cut = b.cut
	doc.notes = append(doc.notes, b.notes...)
	if cache != nil {
		doc.state = CacheNotStored
		switch why := storable(resp, b); {
		case why != "":
			doc.notes = append(doc.notes, "not cached: "+why)
		default:
			if err := cache.store(c.url, &doc.entry, doc.body); err != nil {
				doc.notes = append(doc.notes, "not cached: "+err.Error())
			} else {
				doc.state = CacheMiss
			}
		}
	}
	return c.respond(ctx, doc)
}

// errAskNetwork: a cached page's chain could not be judged without a
// request; the request judges it.
var errAskNetwork = errors.New("the cached chain cannot be judged offline")

// checkCached judges a cached page's URL and every redirect target of its
// chain against the policy now in force, as a request would: the places
// sandbox.network lists, and the addresses the host resolves to (unless
// fetch.allowHosts lists it). A page cached under a looser policy is
// never served under a tighter one.
func (c *call) checkCached(ctx context.Context, e *cacheEntry) error {
	chain := []string{redact(c.url)}
	for _, h := range e.Redirects {
		chain = append(chain, h.To)
	}
	places := networkPlaces(c.env.Config)
	d := &safenet.Dialer{Allow: c.allow, Resolver: c.opts.Resolver}
	for i, raw := range chain {
		u, err := url.Parse(raw)
		if err != nil {
			return errAskNetwork
		}
		if places != nil && !placeAllowed(places, u.Hostname(), portOf(u)) {
			return &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("%s is not among the places sandbox.network allows (%s); its cached copy is not served", redact(u), strings.Join(places, ", ")),
				Hint:    "a person can add host:port to sandbox.network in the user config; until then, work from what is on disk"}
		}
		if err := d.CheckHost(ctx, u.Hostname()); err != nil {
			var de *safenet.DeniedError
			if errors.As(err, &de) {
				de.ViaProxy, de.Cached = false, true
				return deniedError(c.url, de, e.Redirects[:i])
			}
			// The name no longer resolves: the request says what is
			// wrong.
			return errAskNetwork
		}
	}
	return nil
}

// storable says why a response is not kept in the cache, or "".
func storable(resp *http.Response, b *body) string {
	switch {
	case resp.StatusCode != http.StatusOK:
		return fmt.Sprintf("status %d", resp.StatusCode)
	case b.cut != "":
		return "the body was cut (" + b.cut + ")"
	case resp.Request.URL.User != nil:
		return "the URL carries credentials"
	}
	for _, v := range resp.Header.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-store") {
				return "the server said Cache-Control: no-store"
			}
		}
	}
	return ""
}

// networkError turns what stopped a request into the contract's error.
func (c *call) networkError(ctx, netCtx context.Context, err error, hops []Hop) error {
	var de *safenet.DeniedError
	var te *tool.Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &de):
		return deniedError(c.url, de, hops)
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err()
	case netCtx.Err() != nil:
		return &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("no answer from %s within the %s time limit", c.where(hops), c.limit()),
			Hint:    "the server is slow or not there; try again later, or raise --timeout (at most " + MaxTimeout.String() + ")"}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &tool.Error{Code: tool.CodeServerUnavailable,
			Message: fmt.Sprintf("cannot find the host %s: %v", dns.Name, dns.Err),
			Hint:    "check the URL's spelling; the host may not exist"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &tool.Error{Code: tool.CodeServerUnavailable,
		Message: fmt.Sprintf("cannot fetch %s: %v", c.where(hops), err),
		Hint:    "the server refused or dropped the connection; check the URL, or try again later"}
}

// limit is the call's whole time limit.
func (c *call) limit() time.Duration {
	if c.params.Timeout > 0 {
		return min(time.Duration(c.params.Timeout*float64(time.Second)), MaxTimeout)
	}
	return DefaultTimeout
}

// where names the URL a failure happened at: the last redirect's target,
// else the URL asked for.
func (c *call) where(hops []Hop) string {
	if len(hops) > 0 && hops[len(hops)-1].To != "" {
		return hops[len(hops)-1].To
	}
	return redact(c.url)
}

func deniedError(u *url.URL, de *safenet.DeniedError, hops []Hop) *tool.Error {
	via := ""
	if len(hops) > 0 {
		chain := make([]string, 0, len(hops)+1)
		chain = append(chain, redact(u))
		for _, h := range hops {
			chain = append(chain, fmt.Sprintf("%d → %s", h.Status, h.To))
		}
		via = " (redirected: " + strings.Join(chain, " ") + ")"
	}
	return &tool.Error{Code: tool.CodeDenied,
		Message: fmt.Sprintf("refused to connect: %v%s; fetch reaches public addresses only", de, via),
		Hint: fmt.Sprintf("if this host is yours and meant to be reached, a person lists it in fetch.allowHosts of the user config (%s)",
			"$XDG_CONFIG_HOME/mcode/config.yaml")}
}

// cacheDirOf is the cache folder of a data directory.
func cacheDirOf(env *tool.Env) string {
	if env.DataDir == "" {
		return ""
	}
	return env.DataDir + string(os.PathSeparator) + CacheDirName
}

func (c *call) cache() *cacheDir {
	if c.params.NoCache || c.url.User != nil {
		return nil // a URL with credentials is never kept
	}
	dir := cacheDirOf(c.env)
	if dir == "" {
		return nil
	}
	return &cacheDir{dir: dir}
}
