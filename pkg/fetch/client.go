package fetch

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/safenet"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Accept is what requests ask for: pages first.
const Accept = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5"

// client makes the requests of one call.
type client struct {
	tr *http.Transport
	ua string
	// places are sandbox.network's allowed places; nil allows every one.
	places []string
}

func (c *call) client() *client {
	d := &safenet.Dialer{Allow: c.allow, Resolver: c.opts.Resolver, Fence: c.opts.Fence}
	tr := &http.Transport{
		Proxy:                  d.ProxyFunc(c.env.LookupEnv),
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    ConnectTimeout,
		DisableCompression:     true,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if c.opts.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: c.opts.RootCAs}
	}
	return &client{
		tr: tr, ua: c.opts.UserAgent, places: networkPlaces(c.env.Config),
	}
}

func (cl *client) close() { cl.tr.CloseIdleConnections() }

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// get requests u and follows its redirects, each target read and checked
// as the first URL was (its scheme here, its address when dialled), at
// most MaxRedirects. Credentials in the URL go to its own origin only;
// no other header that identifies the caller is ever sent (no cookies, no
// Referer). A conditional request is made to the URL the cached copy came
// from.
func (cl *client) get(ctx context.Context, u *url.URL, cached *cacheEntry) (*http.Response, []Hop, error) {
	var hops []Hop
	seen := []string{redact(u)}
	cur := u
	for {
		if cl.places != nil && !placeAllowed(cl.places, cur.Hostname(), portOf(cur)) {
			return nil, hops, &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("%s is not among the places sandbox.network allows (%s)", redact(cur), strings.Join(cl.places, ", ")),
				Hint:    "a person can add host:port to sandbox.network in the user config; until then, work from what is on disk"}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cur.String(), nil)
		if err != nil {
			return nil, hops, err
		}
		req.Header.Set("User-Agent", cl.ua)
		req.Header.Set("Accept", Accept)
		req.Header.Set("Accept-Encoding", AcceptEncoding)
		if cached != nil && cached.FinalURL == redact(cur) {
			if cached.ETag != "" {
				req.Header.Set("If-None-Match", cached.ETag)
			}
			if cached.LastModified != "" {
				req.Header.Set("If-Modified-Since", cached.LastModified)
			}
		}
		if user := cur.User; user != nil {
			pass, _ := user.Password()
			req.SetBasicAuth(user.Username(), pass)
		}
		// The transport itself, not http.Client: redirects are followed
		// here, one hop at a time, and a Location the client could not
		// parse is answered as one fetch does not follow, not as a
		// failed connection.
		resp, err := cl.tr.RoundTrip(req)
		if err != nil {
			return nil, hops, err
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			return resp, hops, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		next, err := cur.Parse(loc)
		if err == nil {
			next, err = safenet.ParseURL(next.String())
		}
		if err != nil {
			return nil, hops, &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("%s redirected (%d) to %q, which fetch does not follow: %s", redact(cur), resp.StatusCode, safenet.RedactText(loc), safenet.RedactText(err.Error())),
				Hint:    "fetch follows redirects to http:// and https:// URLs only; fetch the target yourself if it is one"}
		}
		switch {
		case !sameOrigin(cur, next):
			next.User = nil
		case next.User == nil:
			next.User = cur.User
		}
		hops = append(hops, Hop{URL: redact(cur), Status: resp.StatusCode, To: redact(next)})
		if slices.Contains(seen, redact(next)) || len(hops) > MaxRedirects {
			return nil, hops, redirectError(hops, slices.Contains(seen, redact(next)))
		}
		seen = append(seen, redact(next))
		cur = next
	}
}

func redirectError(hops []Hop, loop bool) *tool.Error {
	chain := []string{hops[0].URL}
	for _, h := range hops {
		chain = append(chain, fmt.Sprintf("(%d) %s", h.Status, h.To))
	}
	what := fmt.Sprintf("more than %d redirects", MaxRedirects)
	if loop {
		what = "a redirect loop"
	}
	return &tool.Error{Code: tool.CodeTooManyRedirects,
		Message: fmt.Sprintf("%s: %s", what, strings.Join(chain, " → ")),
		Hint:    "the site redirects in circles or too far; fetch the last URL of the chain directly if it is the page you want"}
}

// sameOrigin: scheme, host and port are the same (the default port
// counting as given).
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
