package fetch

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/go-pdf/fpdf"
	"github.com/klauspost/compress/zstd"

	"github.com/mcode-dev/mcode/internal/ssrftest"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// site is a web server on 127.0.0.1 with one route per case, counting
// the requests each path gets.
type site struct {
	*httptest.Server
	port string
	mu   sync.Mutex
	hits map[string]int
	// reqs keeps the headers of each request, by path.
	reqs map[string][]http.Header
	// sent counts the bytes /big wrote.
	sent atomic.Int64
}

func (s *site) count(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[r.URL.Path]++
	s.reqs[r.URL.Path] = append(s.reqs[r.URL.Path], r.Header.Clone())
}

// Hits is how many requests path got.
func (s *site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Last is the headers of path's last request.
func (s *site) Last(path string) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reqs[path]
	if len(r) == 0 {
		return nil
	}
	return r[len(r)-1]
}

// The pages' bodies, made once.
var (
	pdfBody = sync.OnceValue(func() []byte {
		p := fpdf.New("P", "mm", "A4", "")
		p.SetFont("Helvetica", "", 12)
		for _, text := range []string{"Quarterly report\nRevenue grew by four percent.", "Outlook\nWe expect more of the same."} {
			p.AddPage()
			for _, line := range strings.Split(text, "\n") {
				p.Cell(0, 6, line)
				p.Ln(6)
			}
		}
		var buf bytes.Buffer
		if err := p.Output(&buf); err != nil {
			panic(err)
		}
		return buf.Bytes()
	})
	pngBody = sync.OnceValue(func() []byte {
		img := image.NewNRGBA(image.Rect(0, 0, 2400, 400))
		for i := 0; i < len(img.Pix); i += 4 {
			x, y := (i/4)%2400, (i/4)/2400
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x), uint8(y), uint8(x^y), 255
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		return buf.Bytes()
	})
	zipBody = sync.OnceValue(func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("hello.txt")
		io.WriteString(w, "hello from the archive\n")
		zw.Close()
		return buf.Bytes()
	})
)

// bombSize is what the gzip and zstd bombs inflate to, 25 times the
// default bound; the brotli one (which cannot be made by repetition, and
// costs its encoder the whole size) to brBombSize.
const (
	bombSize   = 256 << 20
	brBombSize = 64 << 20
)

// bombs are bodies that inflate to bombSize: gzip members and zstd
// frames of a MiB of zeros, one after another (both formats read on
// across them), and one brotli stream.
var bombs = sync.OnceValue(func() map[string][]byte {
	zeros := make([]byte, 1<<20)
	var g bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	gw.Write(zeros)
	gw.Close()
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write(zeros)
	zw.Close()
	var b bytes.Buffer
	bw := brotli.NewWriterLevel(&b, 0)
	for i := 0; i < brBombSize>>20; i++ {
		bw.Write(zeros)
	}
	bw.Close()
	return map[string][]byte{
		"gzip": bytes.Repeat(g.Bytes(), bombSize>>20),
		"zstd": bytes.Repeat(z.Bytes(), bombSize>>20),
		"br":   b.Bytes(),
	}
})

// emptyBlocks is a gzip stream of n empty stored deflate blocks: it
// inflates to nothing, however long it is.
func emptyBlocks(n int) []byte {
	var buf bytes.Buffer
	buf.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	block := []byte{0x00, 0x00, 0x00, 0xff, 0xff} // BFINAL 0, BTYPE 00, LEN 0, NLEN
	for i := 0; i < n; i++ {
		buf.Write(block)
	}
	buf.Write([]byte{0x01, 0x00, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0})
	return buf.Bytes()
}

func newSite(t *testing.T) *site {
	s := &site{hits: map[string]int{}, reqs: map[string][]http.Header{}}
	article := readFile(t, "testdata/article.html")
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(article)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"mcode","tags":["cli","agents"],"stars":42,"owner":{"login":"ada"}}`)
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdfBody())
	})
	mux.HandleFunc("/picture", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBody())
	})
	mux.HandleFunc("/files/archive", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(zipBody())
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(50<<20))
		line := []byte(strings.Repeat("all work and no play makes jack a dull boy ", 23) + "\n") // 1 KiB
		for i := 0; i < 50<<10; i++ {
			n, err := w.Write(line)
			s.sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	for _, enc := range []string{"gzip", "br", "zstd"} {
		mux.HandleFunc("/bomb/"+enc, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", enc)
			w.Write(bombs()[enc])
		})
	}
	mux.HandleFunc("/inflates-to-nothing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(emptyBlocks(1 << 20)) // 5 MiB on the wire, nothing inflated
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		for i := 0; ; i++ {
			if _, err := w.Write([]byte{'a' + byte(i%26)}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	})
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	mux.HandleFunc("/loop/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/b", http.StatusFound) })
	mux.HandleFunc("/loop/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/a", http.StatusFound) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/chain/"))
		if n == 0 {
			io.WriteString(w, "the end of the chain")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<html><body><h1>Not Found</h1><p>No page lives at this address.</p></body></html>")
	})
	mux.HandleFunc("/huge-error", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html><body><p>Down for maintenance.</p>")
		line := []byte(strings.Repeat("<p>filler filler filler</p>", 36) + "\n") // 1 KiB
		for i := 0; i < 4<<20; i++ {                                             // 4 GiB, unless the client goes
			n, err := w.Write(line)
			s.sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/bom", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "\xef\xbb\xbfhello from a file with a BOM\n")
	})
	mux.HandleFunc("/always-304", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "database connection lost")
	})
	mux.HandleFunc("/etag", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 03 Mar 2025 10:00:00 GMT")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "version one of the page\n")
	})
	mux.HandleFunc("/no-store", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "private, no-store")
		io.WriteString(w, "secret of the day\n")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "authorization=%q\n", r.Header.Get("Authorization"))
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		for i := 1; i <= 3000; i++ {
			fmt.Fprintf(w, "line %d: ünïcödé text to page through, long enough to matter\n", i)
		}
	})
	mux.HandleFunc("/nested", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>"+strings.Repeat("<div>", 200000)+"deep text"+strings.Repeat("</div>", 200000)+"</body></html>")
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count(r)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	s.port = u.Port()
	return s
}

// base is the site's URL under a host name.
func (s *site) base(host string) string { return "http://" + host + ":" + s.port }

// fetcher calls web_fetch as the registry would, with a test resolver
// and a fence that keeps every connection on loopback.
type fetcher struct {
	t     *testing.T
	tool  *tool.Tool
	env   *tool.Env
	fence *ssrftest.Fence
	now   time.Time
}

func newFetcher(t *testing.T, allow ...string) *fetcher {
	f := &fetcher{t: t, fence: &ssrftest.Fence{}, now: time.Now()}
	answers := ssrftest.Answers()
	answers["blog.test"] = [][]string{{"127.0.0.1"}}
	answers["public.test"] = [][]string{{"127.0.0.1"}} // a public site: it is allowed
	f.tool = Tool(Options{UserAgent: "mcode/test", Resolver: ssrftest.NewResolver(answers), Fence: f.fence.Check})
	cfg := config.Defaults()
	cfg.Fetch.AllowHosts = allow
	f.env = &tool.Env{Root: t.TempDir(), DataDir: t.TempDir(), Config: &cfg,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return f.now }}
	return f
}

// call runs web_fetch with args and returns the envelope.
func (f *fetcher) call(args map[string]any) *tool.Envelope {
	f.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	resp, err := f.tool.Run(context.Background(), f.env, raw)
	return tool.NewEnvelope(Name, resp, err)
}

// ok calls and fails the test unless the call succeeded.
func (f *fetcher) ok(args map[string]any) (*tool.Envelope, *Result) {
	f.t.Helper()
	env := f.call(args)
	if !env.OK {
		f.t.Fatalf("%v: %+v", args, env.Error)
	}
	return env, env.Result.(*Result)
}

// fails calls and fails the test unless the call failed with code.
func (f *fetcher) fails(code tool.Code, args map[string]any) *tool.Envelope {
	f.t.Helper()
	env := f.call(args)
	if env.OK || env.Error.Code != code {
		f.t.Fatalf("%v: ok %v, error %+v; want %s", args, env.OK, env.Error, code)
	}
	return env
}

// content is the output after its first line.
func content(env *tool.Envelope) string {
	_, rest, _ := strings.Cut(env.OutputText(), "\n\n")
	return rest
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
