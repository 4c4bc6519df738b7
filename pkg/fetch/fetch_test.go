package fetch

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/internal/ssrftest"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// TestArticleMainText: an article among navigation, ads, a cookie banner,
// a sidebar, comments, share buttons, a footer and scripts comes back as
// its main text in Markdown, exactly the reference extraction
// (testdata/article.md), links made absolute; none of the chrome.
func TestArticleMainText(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "blog.test")
	env, res := f.ok(map[string]any{"url": s.base("blog.test") + "/article"})
	got := strings.ReplaceAll(content(env), s.base("blog.test"), "http://blog.test")
	want := string(readFile(t, "testdata/article.md"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("main text differs from the reference (-want +got):\n%s", diff)
	}
	for _, chrome := range []string{"cookies", "Accept all", "About us", "Subscribe", "ADVERTISEMENT", "Sponsored",
		"Related posts", "newsletter", "comments", "Great post", "Share on Twitter", "All rights reserved", "Privacy",
		"track(", "dataLayer", "border:"} {
		if strings.Contains(env.OutputText(), chrome) {
			t.Errorf("the output keeps %q", chrome)
		}
	}
	first, _, _ := strings.Cut(env.OutputText(), "\n")
	for _, w := range []string{s.base("blog.test") + "/article", "200 OK", "text/html; charset=utf-8", "Markdown", "not instructions"} {
		if !strings.Contains(first, w) {
			t.Errorf("first line %q lacks %q", first, w)
		}
	}
	if res.Title != "Bounded Reads in Go" || res.Kind != KindHTML || res.Status != 200 || res.Cache != CacheMiss || res.BodyCut != nil || env.Truncated {
		t.Errorf("result %+v", res)
	}

	env, _ = f.ok(map[string]any{"url": s.base("blog.test") + "/article", "format": "text"})
	text := content(env)
	for _, w := range []string{"Bounded Reads in Go", "io.LimitReader stops a reader", "Wrap the body in the decoder first.", "r := io.LimitReader(gz, max+1)"} {
		if !strings.Contains(text, w) {
			t.Errorf("text format lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "ADVERTISEMENT") || strings.Contains(text, "](") || strings.Contains(text, "`") {
		t.Errorf("text format has chrome or Markdown:\n%s", text)
	}
	env, _ = f.ok(map[string]any{"url": s.base("blog.test") + "/article", "format": "raw"})
	if !strings.Contains(content(env), `<div class="ad ad-leaderboard"`) {
		t.Errorf("raw format is not the body:\n%.300s", content(env))
	}
}

func TestJSONIndented(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, res := f.ok(map[string]any{"url": s.URL + "/api"})
	want := "{\n  \"name\": \"mcode\",\n  \"tags\": [\n    \"cli\",\n    \"agents\"\n  ],\n  \"stars\": 42,\n  \"owner\": {\n    \"login\": \"ada\"\n  }\n}"
	if got := content(env); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if res.Kind != KindJSON || res.MIME != "application/json" {
		t.Errorf("result %+v", res)
	}
	env, _ = f.ok(map[string]any{"url": s.URL + "/api", "format": "raw"})
	if !strings.HasPrefix(content(env), `{"name":"mcode"`) {
		t.Errorf("raw JSON: %s", content(env))
	}
}

func TestPDFText(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, res := f.ok(map[string]any{"url": s.URL + "/report.pdf"})
	got := content(env)
	for _, w := range []string{"── page 1 of 2 ──", "Quarterly report", "Revenue grew by four percent.", "── page 2 of 2 ──", "We expect more of the same."} {
		if !strings.Contains(got, w) {
			t.Errorf("PDF text lacks %q:\n%s", w, got)
		}
	}
	if res.Kind != KindPDF || res.Pages == nil || *res.Pages != 2 {
		t.Errorf("result %+v", res)
	}
}

func TestImageFitted(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, res := f.ok(map[string]any{"url": s.URL + "/picture"})
	m := res.Media
	if res.Kind != KindImage || m == nil || !m.Resized || m.Width != 2000 || m.Height != 333 || m.Original.Width != 2400 {
		t.Fatalf("result %+v, media %+v", res, m)
	}
	if len(env.Media) != 1 {
		t.Fatalf("media %d", len(env.Media))
	}
	data, err := base64.StdEncoding.DecodeString(env.Media[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != 2000 {
		t.Fatalf("sent image: %v %v", img.Bounds(), err)
	}
	if !strings.Contains(env.OutputText(), "2400×400") {
		t.Errorf("output %q", env.OutputText())
	}
}

func TestBinarySaved(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	_, res := f.ok(map[string]any{"url": s.URL + "/files/archive"})
	if res.Kind != KindBinary || res.MIME != "application/zip" || res.Saved == nil {
		t.Fatalf("result %+v", res)
	}
	got, err := os.ReadFile(*res.Saved)
	if err != nil || !bytes.Equal(got, zipBody()) || !strings.HasSuffix(*res.Saved, "/archive.zip") {
		t.Fatalf("saved %s: %v", *res.Saved, err)
	}
}

// TestBigBody: a 50 MiB body is read to the 10 MiB bound and no further:
// the text is paged, the result says the body was cut, and the server
// could not send much more than was read.
func TestBigBody(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, res := f.ok(map[string]any{"url": s.URL + "/big"})
	if res.Bytes != DefaultMaxBytes || res.BodyCut == nil || *res.BodyCut != CutMaxBytes || !env.Truncated {
		t.Fatalf("result %+v", res)
	}
	if env.Continuation == nil || env.Continuation.NextOffset != res.Text.End || !strings.Contains(env.Continuation.Hint, "--max-bytes") {
		t.Errorf("continuation %+v", env.Continuation)
	}
	if len(env.OutputText()) > MaxOutputBytes {
		t.Errorf("output %d bytes, over %d", len(env.OutputText()), MaxOutputBytes)
	}
	time.Sleep(100 * time.Millisecond)
	if sent := s.sent.Load(); sent > 20<<20 {
		t.Errorf("the server sent %d MiB: the body was read past the bound", sent>>20)
	}
	f.ok(map[string]any{"url": s.URL + "/big", "max_bytes": "1KiB", "no_cache": true})
}

// TestBombs: bodies that inflate to 25 times the bound (gzip, brotli,
// zstd) stop at the bound; a stream that inflates to nothing stops after
// a bounded read of the wire.
func TestBombs(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	for _, enc := range []string{"gzip", "br", "zstd"} {
		t.Run(enc, func(t *testing.T) {
			if len(bombs()[enc]) > 1<<20 {
				t.Fatalf("the %s bomb is %d bytes: not a bomb", enc, len(bombs()[enc]))
			}
			env, res := f.ok(map[string]any{"url": s.URL + "/bomb/" + enc, "no_cache": true})
			if res.Bytes != DefaultMaxBytes || res.BodyCut == nil || *res.BodyCut != CutMaxBytes || !env.Truncated {
				t.Errorf("result %+v", res)
			}
		})
	}
	env, res := f.ok(map[string]any{"url": s.URL + "/inflates-to-nothing", "no_cache": true, "max_bytes": "1MiB"})
	if res.Bytes != 0 || res.BodyCut == nil || *res.BodyCut != CutMaxBytes {
		t.Errorf("result %+v, output %q", res, env.OutputText())
	}
}

// TestTrickle: a body that comes one byte a second and never ends gives
// what arrived when the time limit runs out, marked, and no later.
func TestTrickle(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	start := time.Now()
	env, res := f.ok(map[string]any{"url": s.URL + "/trickle", "timeout": 3})
	took := time.Since(start)
	if took > 5*time.Second || took < 2*time.Second {
		t.Errorf("took %s with a 3 s limit", took)
	}
	if res.BodyCut == nil || *res.BodyCut != CutTimeout || res.Bytes < 1 || !env.Truncated || !strings.HasPrefix(content(env), "a") {
		t.Errorf("result %+v, output %q", res, env.OutputText())
	}
	if env.Continuation == nil || !strings.Contains(env.Continuation.Hint, "--timeout") {
		t.Errorf("continuation %+v", env.Continuation)
	}

	start = time.Now()
	env = f.fails(tool.CodeTimeout, map[string]any{"url": s.URL + "/silent", "timeout": 1})
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a silent server held the call %s", took)
	}
	if env.ExitCode() != tool.ExitTimeout {
		t.Errorf("exit %d", env.ExitCode())
	}
}

func TestRedirects(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env := f.fails(tool.CodeTooManyRedirects, map[string]any{"url": s.URL + "/loop/a"})
	if !strings.Contains(env.Error.Message, "redirect loop") || s.Hits("/loop/a") != 1 {
		t.Errorf("%+v, /loop/a hit %d times", env.Error, s.Hits("/loop/a"))
	}
	env = f.fails(tool.CodeTooManyRedirects, map[string]any{"url": s.URL + "/chain/6"})
	if !strings.Contains(env.Error.Message, "more than 5 redirects") || s.Hits("/chain/0") != 0 {
		t.Errorf("%+v", env.Error)
	}
	env, res := f.ok(map[string]any{"url": s.URL + "/chain/5"})
	if len(res.Redirects) != 5 || res.FinalURL != s.URL+"/chain/0" || content(env) != "the end of the chain" {
		t.Errorf("result %+v", res)
	}
	if h := res.Redirects[0]; h.URL != s.URL+"/chain/5" || h.Status != 301 || h.To != s.URL+"/chain/4" {
		t.Errorf("first hop %+v", h)
	}
	f.fails(tool.CodeDenied, map[string]any{"url": s.URL + "/redirect?to=file:///etc/passwd"})
}

func TestHTTPErrors(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env := f.fails(tool.CodeNotFound, map[string]any{"url": s.URL + "/missing"})
	if res := env.Result.(*Result); res.Status != 404 || !strings.Contains(env.OutputText(), "No page lives at this address.") {
		t.Errorf("404: %+v %q", res, env.OutputText())
	}
	env = f.fails(tool.CodeHTTPStatus, map[string]any{"url": s.URL + "/broken"})
	if res := env.Result.(*Result); res.Status != 500 || !strings.Contains(env.OutputText(), "database connection lost") || !strings.Contains(env.Error.Message, "500 Internal Server Error") {
		t.Errorf("500: %+v %q", env.Error, env.OutputText())
	}
	f.fails(tool.CodeInvalidArgs, map[string]any{"url": "ftp://example.com/x"})
	f.fails(tool.CodeInvalidArgs, map[string]any{"url": "http://256.1.1.1/"})
	f.fails(tool.CodeServerUnavailable, map[string]any{"url": "http://nowhere.test/"})
}

// TestSSRFCorpus: every host of the corpus is refused at the address it
// names, fetched directly and reached by a redirect from a public page;
// the sentinel behind them is never reached.
func TestSSRFCorpus(t *testing.T) {
	s := newSite(t)
	sentinel := newSite(t)
	f := newFetcher(t, "public.test")
	for _, c := range ssrftest.Corpus {
		target := "http://" + c.Host + ":" + sentinel.port + "/echo"
		want := c.Addr + ":" + sentinel.port
		if strings.Contains(c.Addr, ":") {
			want = "[" + c.Addr + "]:" + sentinel.port
		}
		env := f.fails(tool.CodeDenied, map[string]any{"url": target})
		if !strings.Contains(env.Error.Message, want) {
			t.Errorf("%s: %s does not name %s", c.Host, env.Error.Message, want)
		}
		env = f.fails(tool.CodeDenied, map[string]any{"url": s.base("public.test") + "/redirect?to=" + target})
		if !strings.Contains(env.Error.Message, want) || !strings.Contains(env.Error.Message, "redirected") {
			t.Errorf("%s by redirect: %s", c.Host, env.Error.Message)
		}
		if env.ExitCode() != tool.ExitDenied {
			t.Errorf("exit %d", env.ExitCode())
		}
	}
	if n := sentinel.Hits("/echo"); n != 0 {
		t.Errorf("the sentinel was reached %d times", n)
	}
	for _, a := range f.fence.Saw() {
		if !strings.HasPrefix(a, "127.0.0.1:"+s.port) {
			t.Errorf("a connection went to %s", a)
		}
	}
}

// TestRebinding: a name public on its first lookup and loopback on the
// next is refused when it turns, by the address then dialled.
func TestRebinding(t *testing.T) {
	sentinel := newSite(t)
	f := newFetcher(t)
	target := "http://rebind.test:" + sentinel.port + "/echo"
	env := f.fails(tool.CodeServerUnavailable, map[string]any{"url": target}) // the public answer: the fence stands for the internet
	if !strings.Contains(env.Error.Message, "93.184.216.34") {
		t.Errorf("first: %s", env.Error.Message)
	}
	env = f.fails(tool.CodeDenied, map[string]any{"url": target})
	if !strings.Contains(env.Error.Message, "127.0.0.1:"+sentinel.port) {
		t.Errorf("second: %s", env.Error.Message)
	}
	if sentinel.Hits("/echo") != 0 {
		t.Error("the sentinel was reached")
	}
}

// TestCache: a second fetch within the freshness time makes no request;
// after it, a conditional request answered 304 serves the cached copy.
func TestCache(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	u := s.URL + "/etag"
	_, res := f.ok(map[string]any{"url": u})
	if res.Cache != CacheMiss || s.Hits("/etag") != 1 {
		t.Fatalf("first: %+v, %d requests", res, s.Hits("/etag"))
	}
	env, res := f.ok(map[string]any{"url": u})
	if res.Cache != CacheHit || s.Hits("/etag") != 1 || content(env) != "version one of the page\n" || res.CachedAt == nil {
		t.Fatalf("second: %+v, %d requests", res, s.Hits("/etag"))
	}
	f.now = f.now.Add(CacheFresh + time.Minute)
	env, res = f.ok(map[string]any{"url": u})
	if res.Cache != CacheRevalidated || s.Hits("/etag") != 2 || content(env) != "version one of the page\n" {
		t.Fatalf("after expiry: %+v, %d requests", res, s.Hits("/etag"))
	}
	if h := s.Last("/etag"); h.Get("If-None-Match") != `"v1"` || h.Get("If-Modified-Since") == "" {
		t.Errorf("the revalidation asked %v", h)
	}
	_, res = f.ok(map[string]any{"url": u})
	if res.Cache != CacheHit || s.Hits("/etag") != 2 {
		t.Fatalf("after revalidation: %+v, %d requests", res, s.Hits("/etag"))
	}
	_, res = f.ok(map[string]any{"url": u, "no_cache": true})
	if res.Cache != CacheOff || s.Hits("/etag") != 3 || s.Last("/etag").Get("If-None-Match") != "" {
		t.Fatalf("no_cache: %+v, %d requests", res, s.Hits("/etag"))
	}
	_, res = f.ok(map[string]any{"url": s.URL + "/no-store"})
	f.ok(map[string]any{"url": s.URL + "/no-store"})
	if res.Cache != CacheNotStored || s.Hits("/no-store") != 2 {
		t.Errorf("no-store: %+v, %d requests", res, s.Hits("/no-store"))
	}
}

// TestPaging: a long page comes in pages of at most the output cap that
// join up to the whole text; the later pages come from the cache.
func TestPaging(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	var joined strings.Builder
	offset, calls := 0, 0
	for {
		env, res := f.ok(map[string]any{"url": s.URL + "/long", "offset": offset})
		calls++
		if len(env.OutputText()) > MaxOutputBytes {
			t.Fatalf("page of %d bytes", len(env.OutputText()))
		}
		if res.Text.Offset != offset {
			t.Fatalf("text %+v at offset %d", res.Text, offset)
		}
		joined.WriteString(content(env))
		if !env.Truncated {
			break
		}
		if env.Continuation.NextOffset <= offset || !strings.Contains(env.Continuation.Hint, "--offset") {
			t.Fatalf("continuation %+v", env.Continuation)
		}
		offset = env.Continuation.NextOffset
	}
	var want strings.Builder
	for i := 1; i <= 3000; i++ {
		want.WriteString("line " + itoa(i) + ": ünïcödé text to page through, long enough to matter\n")
	}
	if joined.String() != want.String() {
		t.Errorf("the pages do not join up to the text (%d bytes, want %d)", joined.Len(), want.Len())
	}
	if calls < 5 || s.Hits("/long") != 1 {
		t.Errorf("%d calls, %d requests", calls, s.Hits("/long"))
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestCredentialsStayWithTheirOrigin: a URL's user and password go to its
// own origin only, never to where it redirects; no Referer or cookie is
// ever sent; the user agent is mcode's.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	a, b := newSite(t), newSite(t)
	f := newFetcher(t, "127.0.0.1")
	u := "http://ada:s3cret@127.0.0.1:" + a.port + "/redirect?to=" + b.URL + "/echo"
	env, res := f.ok(map[string]any{"url": u})
	if got := a.Last("/redirect").Get("Authorization"); !strings.HasPrefix(got, "Basic ") {
		t.Errorf("the origin got Authorization %q", got)
	}
	if h := b.Last("/echo"); h.Get("Authorization") != "" || h.Get("Referer") != "" || h.Get("Cookie") != "" {
		t.Errorf("the other origin got %v", h)
	}
	if !strings.Contains(content(env), `authorization=""`) || strings.Contains(env.OutputText()+res.URL+res.FinalURL, "s3cret") {
		t.Errorf("output %q, result %+v", env.OutputText(), res)
	}
	if ua := b.Last("/echo").Get("User-Agent"); ua != "mcode/test" {
		t.Errorf("user agent %q", ua)
	}
	// The same origin keeps them across a redirect.
	f.ok(map[string]any{"url": "http://ada:s3cret@127.0.0.1:" + a.port + "/redirect?to=/echo"})
	if got := a.Last("/echo").Get("Authorization"); !strings.HasPrefix(got, "Basic ") {
		t.Errorf("same origin after a redirect: Authorization %q", got)
	}
}

// TestDeepNesting: a page of 200,000 nested elements is read, its text
// kept, without the libraries' recursion running away.
func TestDeepNesting(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, res := f.ok(map[string]any{"url": s.URL + "/nested"})
	if !strings.Contains(content(env), "deep text") || !strings.Contains(strings.Join(res.Notes, " "), "without structure") {
		t.Errorf("output %q, notes %v", env.OutputText(), res.Notes)
	}
}

func TestOtherNameAndAlias(t *testing.T) {
	if Tool(Options{}).OtherNames[0] != "fetch" {
		t.Error("fetch is not another name of web_fetch")
	}
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	f.ok(map[string]any{"uri": s.URL + "/api"})
}

// TestSandboxNetwork: fetch follows the person's sandbox.network as a
// sandboxed command would. With the network on it reaches the sentinel
// site; with it off it makes no request; with a list of places, only
// those, directly or by a redirect.
func TestSandboxNetwork(t *testing.T) {
	s := newSite(t)
	sentinel := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	if _, res := f.ok(map[string]any{"url": sentinel.URL + "/echo", "no_cache": true}); res.Status != 200 {
		t.Fatalf("network on: status %d", res.Status)
	}
	if sentinel.Hits("/echo") != 1 {
		t.Fatalf("network on: the sentinel was hit %d times", sentinel.Hits("/echo"))
	}

	f.env.Config.Sandbox.Network = []string{"off"}
	env := f.fails(tool.CodeDenied, map[string]any{"url": sentinel.URL + "/echo", "no_cache": true})
	if !strings.Contains(env.Error.Message, "sandbox.network: off") {
		t.Errorf("off: %s", env.Error.Message)
	}

	f.env.Config.Sandbox.Network = []string{"127.0.0.1:" + s.port}
	f.ok(map[string]any{"url": s.URL + "/chain/0", "no_cache": true})
	env = f.fails(tool.CodeDenied, map[string]any{"url": sentinel.URL + "/echo", "no_cache": true})
	if !strings.Contains(env.Error.Message, "not among the places sandbox.network allows") {
		t.Errorf("list: %s", env.Error.Message)
	}
	f.fails(tool.CodeDenied, map[string]any{"url": s.URL + "/redirect?to=" + sentinel.URL + "/echo", "no_cache": true})

	f.env.Config.Sandbox.Network = []string{":" + sentinel.port}
	f.ok(map[string]any{"url": sentinel.URL + "/echo", "no_cache": true})
	if n := sentinel.Hits("/echo"); n != 2 {
		t.Errorf("the sentinel was hit %d times, want 2 (network on, then its port allowed)", n)
	}
}

// TestCacheFollowsPolicy: a page cached while the policy let it through
// is not served from the cache once the policy refuses it (allowHosts
// narrowed, sandbox.network off or listing other places), also when only
// a redirect of the cached chain is now refused.
func TestCacheFollowsPolicy(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	u := s.URL + "/etag"
	if _, res := f.ok(map[string]any{"url": u}); res.Cache != CacheMiss {
		t.Fatalf("first: %+v", res)
	}
	f.env.Config.Fetch.AllowHosts = nil
	env := f.fails(tool.CodeDenied, map[string]any{"url": u})
	if !strings.Contains(env.Error.Message, "127.0.0.1") {
		t.Errorf("allowHosts narrowed: %s", env.Error.Message)
	}
	f.env.Config.Fetch.AllowHosts = []string{"127.0.0.1"}
	f.env.Config.Sandbox.Network = []string{"off"}
	f.fails(tool.CodeDenied, map[string]any{"url": u})
	f.env.Config.Sandbox.Network = []string{":1"}
	f.fails(tool.CodeDenied, map[string]any{"url": u})
	f.env.Config.Sandbox.Network = nil
	if _, res := f.ok(map[string]any{"url": u}); res.Cache != CacheHit {
		t.Errorf("policy restored: %+v", res)
	}

	// A chain cached through a redirect: its target's host now refused.
	a, b := newSite(t), newSite(t)
	f.env.Config.Fetch.AllowHosts = []string{"public.test", "localhost.test"}
	chain := a.base("public.test") + "/redirect?to=" + b.base("localhost.test") + "/etag"
	if _, res := f.ok(map[string]any{"url": chain}); res.Cache != CacheMiss || len(res.Redirects) != 1 {
		t.Fatalf("chain: %+v", res)
	}
	f.env.Config.Fetch.AllowHosts = []string{"public.test"}
	env = f.fails(tool.CodeDenied, map[string]any{"url": chain})
	if !strings.Contains(env.Error.Message, "localhost.test") {
		t.Errorf("chain: %s", env.Error.Message)
	}
	f.env.Config.Sandbox.Network = []string{"public.test:" + a.port}
	f.env.Config.Fetch.AllowHosts = []string{"public.test", "localhost.test"}
	f.fails(tool.CodeDenied, map[string]any{"url": chain})
}

// TestOddRedirects: every redirect target is judged as the first URL
// was; a Location that is not a URL fetch takes is denied with what it
// said, never followed or guessed at.
func TestOddRedirects(t *testing.T) {
	s := newSite(t)
	sentinel := newSite(t)
	f := newFetcher(t, "public.test")
	for _, to := range []string{
		"http://[::1", "http://a b/", "javascript:alert(1)", "file:///etc/passwd", "gopher://public.test/",
		"http:///nohost", "http://public.test:99999/", "data:text/plain,hi",
		"//169.254.169.254/latest/meta-data/", "http://localhost.test:" + sentinel.port + "/echo",
		"http://[::ffff:127.0.0.1]:" + sentinel.port + "/echo", "http://0x7f.1:" + sentinel.port + "/echo",
	} {
		env := f.call(map[string]any{"url": s.base("public.test") + "/redirect?to=" + url.QueryEscape(to), "no_cache": true})
		if env.OK || env.Error.Code != tool.CodeDenied {
			t.Errorf("%q: ok %v, error %+v; want denied", to, env.OK, env.Error)
		}
	}
	if n := sentinel.Hits("/echo"); n != 0 {
		t.Errorf("the sentinel was reached %d times", n)
	}
}

// TestHugeErrorPage: a 503 whose page never ends is read only as far as
// its excerpt needs, whatever max_bytes allows, and answers at once.
func TestHugeErrorPage(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	start := time.Now()
	env := f.fails(tool.CodeHTTPStatus, map[string]any{"url": s.URL + "/huge-error", "max_bytes": "100MiB"})
	res := env.Result.(*Result)
	if res.Bytes > MaxErrorBodyBytes || !strings.Contains(env.OutputText(), "Down for maintenance.") {
		t.Errorf("read %d bytes of the error page; output %.200q", res.Bytes, env.OutputText())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}

// TestDeepJSON: a JSON body's indentation stops growing past
// MaxJSONIndent levels (9,000 nested arrays, 18 KB, made 162 MB of
// spaces); shallower bodies are indented as encoding/json does.
func TestDeepJSON(t *testing.T) {
	for _, doc := range []string{
		`{"name":"mcode","tags":["cli","agents"],"empty":{},"none":[],"s":"a, \"b\": [c] {d}\\","n":-1.5e3,"t":true,"z":null}`,
		` [ 1 , { "a" : [ [ ] , { } ] } ] `,
		`"just a string"`,
	} {
		var want bytes.Buffer
		json.Indent(&want, []byte(strings.TrimSpace(doc)), "", "  ")
		if got, note := prettyJSON(doc); got != want.String() || note != "" {
			t.Errorf("%s:\n%s\nwant\n%s", doc, got, want.String())
		}
	}
	deep := strings.Repeat(`{"a":[`, 4500) + strings.Repeat("]}", 4500)
	got, note := prettyJSON(deep)
	if len(got) > 100*len(deep) || !strings.Contains(note, "nested deeper than") {
		t.Errorf("%d bytes from %d, note %q", len(got), len(deep), note)
	}
	if _, note := prettyJSON(`{"a":`); !strings.Contains(note, "not valid JSON") {
		t.Errorf("invalid: %q", note)
	}
}

// TestBOM: a byte order mark at the start of a body is not text: it is
// dropped, in UTF-8 and UTF-16, plain text, JSON and HTML alike.
func TestBOM(t *testing.T) {
	for _, c := range []struct{ body, contentType string }{
		{"\xef\xbb\xbfhello world\n", "text/plain"},
		{"\xef\xbb\xbfhello world\n", "text/plain; charset=utf-8"},
		{"\xef\xbb\xbfhello world\n", ""},
		{"\xff\xfeh\x00e\x00l\x00l\x00o\x00 \x00w\x00o\x00r\x00l\x00d\x00", "text/plain"},
		{"\xef\xbb\xbf{\"hello\": \"world\"}", "application/json"},
		{"\xef\xbb\xbf<html><body><p>hello world</p></body></html>", "text/html"},
	} {
		text, _ := decodeText([]byte(c.body), c.contentType)
		if strings.ContainsRune(text, '\uFEFF') || !strings.Contains(text, "hello") {
			t.Errorf("%q (%s): %q", c.body, c.contentType, text)
		}
	}
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	env, _ := f.ok(map[string]any{"url": s.URL + "/bom"})
	if strings.ContainsRune(env.OutputText(), '\uFEFF') || !strings.HasPrefix(content(env), "hello") {
		t.Errorf("output %q", env.OutputText())
	}
}

// TestUnaskedNotModified: a 304 to a request that named no cached copy
// has nothing to serve: it is an error that says so, not an empty page.
func TestUnaskedNotModified(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, "127.0.0.1")
	for _, noCache := range []bool{false, true} {
		env := f.call(map[string]any{"url": s.URL + "/always-304", "no_cache": noCache})
		if env.OK || env.Error.Code != tool.CodeHTTPStatus || !strings.Contains(env.Error.Message, "304") || !strings.Contains(env.Error.Hint, "no cached copy") {
			t.Errorf("no_cache %v: ok %v, error %+v, output %q", noCache, env.OK, env.Error, env.OutputText())
		}
	}
}
