package artifact

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

var payload = []byte(strings.Repeat("pinned artifact bytes ", 50000))

// server serves payload at /pkg.tgz: the first drop requests (when set)
// send half the body and cut the connection; it counts requests and
// remembers the Range headers it saw.
type server struct {
	*httptest.Server
	requests atomic.Int32
	drops    atomic.Int32
	mu       sync.Mutex
	ranges   []string
}

func (s *server) seenRanges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

func newServer(t *testing.T, drops int32) *server {
	s := &server{}
	s.drops.Store(drops)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		switch r.URL.Path {
		case "/pkg.tgz":
		case "/flaky":
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		default:
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		s.mu.Unlock()
		if s.drops.Add(-1) >= 0 {
			w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
			w.Header().Set("ETag", `"v1"`)
			w.Write(payload[:len(payload)/2])
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "pkg.tgz", time.Time{}, strings.NewReader(string(payload)))
	}))
	t.Cleanup(s.Close)
	if host, _, _ := net.SplitHostPort(s.Listener.Addr().String()); host != "127.0.0.1" {
		t.Fatalf("the test server listens on %s, not loopback", host)
	}
	return s
}

func testFetcher(t *testing.T) *Fetcher {
	return &Fetcher{CacheDir: filepath.Join(t.TempDir(), "cache"), Backoff: time.Millisecond}
}

// leftovers lists the cache's temp folder: a failed fetch keeps nothing.
func leftovers(t *testing.T, f *Fetcher) []string {
	entries, _ := os.ReadDir(filepath.Join(f.CacheDir, "tmp"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestFetchVerifiesCachesAndThenMakesNoRequest(t *testing.T) {
	s := newServer(t, 0)
	f := testFetcher(t)
	in := mustIntegrity(t, sri512(payload))
	r, err := f.Fetch(context.Background(), s.URL+"/pkg.tgz", in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Cached || r.Size != int64(len(payload)) || r.Path != f.CachePath(in[0]) {
		t.Fatalf("result %+v", r)
	}
	if data, _ := os.ReadFile(r.Path); string(data) != string(payload) {
		t.Fatal("the cached file differs")
	}
	r, err = f.Fetch(context.Background(), s.URL+"/pkg.tgz", in)
	if err != nil || !r.Cached {
		t.Fatalf("second fetch: %+v, %v", r, err)
	}
	if n := s.requests.Load(); n != 1 {
		t.Fatalf("%d requests, want 1: the cache hit asked the server", n)
	}
	// A cached file that was tampered with is fetched again.
	os.WriteFile(r.Path, []byte("tampered"), 0o644)
	if r, err = f.Fetch(context.Background(), s.URL+"/pkg.tgz", in); err != nil || r.Cached || s.requests.Load() != 2 {
		t.Fatalf("after tampering: %+v, %v, %d requests", r, err, s.requests.Load())
	}
}

func TestFetchWrongHashKeepsNothing(t *testing.T) {
	s := newServer(t, 0)
	f := testFetcher(t)
	in := mustIntegrity(t, sri512([]byte("something else")))
	_, err := f.Fetch(context.Background(), s.URL+"/pkg.tgz", in)
	te := wantCode(t, err, tool.CodeChecksumMismatch)
	if !strings.Contains(te.Message, sri512(payload)) {
		t.Errorf("message %q does not give the actual hash", te.Message)
	}
	if _, err := os.Stat(f.CachePath(in[0])); !os.IsNotExist(err) {
		t.Error("a file was cached")
	}
	if l := leftovers(t, f); len(l) != 0 {
		t.Errorf("left %q", l)
	}
}

func TestFetchResumesADroppedConnection(t *testing.T) {
	s := newServer(t, 1)
	f := testFetcher(t)
	r, err := f.Fetch(context.Background(), s.URL+"/pkg.tgz", mustIntegrity(t, sri512(payload)))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("bytes=%d-", len(payload)/2)
	if ranges := s.seenRanges(); r.Attempts != 2 || r.Resumed != 1 || len(ranges) != 2 || ranges[1] != want {
		t.Fatalf("result %+v, ranges %q; want a second request with Range %s", r, ranges, want)
	}
	if data, _ := os.ReadFile(r.Path); string(data) != string(payload) {
		t.Fatal("the resumed file differs")
	}
}

func TestFetchGivesUpAfterBoundedRetries(t *testing.T) {
	s := newServer(t, 100)
	f := testFetcher(t)
	f.Attempts = 3
	_, err := f.Fetch(context.Background(), s.URL+"/pkg.tgz", mustIntegrity(t, sri512(payload)))
	te := wantCode(t, err, tool.CodeServerUnavailable)
	if !strings.Contains(te.Message, "failed 3 times") || s.requests.Load() != 3 {
		t.Errorf("message %q after %d requests", te.Message, s.requests.Load())
	}
	s.requests.Store(0)
	_, err = f.Fetch(context.Background(), s.URL+"/flaky", mustIntegrity(t, sri512(payload)))
	wantCode(t, err, tool.CodeServerUnavailable)
	if n := s.requests.Load(); n != 3 {
		t.Errorf("%d requests for a 503, want 3", n)
	}
	if l := leftovers(t, f); len(l) != 0 {
		t.Errorf("left %q", l)
	}
}

func TestFetch404IsNotFoundWithoutRetrying(t *testing.T) {
	s := newServer(t, 0)
	f := testFetcher(t)
	_, err := f.Fetch(context.Background(), s.URL+"/missing.tgz", mustIntegrity(t, sri512(payload)))
	te := wantCode(t, err, tool.CodeNotFound)
	if !strings.Contains(te.Message, "404") || s.requests.Load() != 1 {
		t.Errorf("message %q after %d requests", te.Message, s.requests.Load())
	}
}

func TestFetchLocalFilesAndSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "pkg.tgz", payload)
	f := testFetcher(t)
	in := mustIntegrity(t, sri512(payload))
	for _, src := range []string{p, "file://" + p} {
		if r, err := f.Fetch(context.Background(), src, in); err != nil || r.Size != int64(len(payload)) {
			t.Fatalf("%s: %+v, %v", src, r, err)
		}
		os.RemoveAll(f.CacheDir)
	}
	f.MaxSize = 1000
	_, err := f.Fetch(context.Background(), p, in)
	wantCode(t, err, tool.CodeTooLarge)
	s := newServer(t, 0)
	_, err = f.Fetch(context.Background(), s.URL+"/pkg.tgz", in)
	wantCode(t, err, tool.CodeTooLarge)
	if l := leftovers(t, f); len(l) != 0 {
		t.Errorf("left %q", l)
	}
}
