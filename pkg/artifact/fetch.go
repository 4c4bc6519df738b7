package artifact

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of fetch.
const (
	// Attempts is how often a download is tried before fetch gives up.
	Attempts = 5
	// Backoff is the wait before the second attempt; it doubles after.
	Backoff = 500 * time.Millisecond
	// MaxBackoff caps the wait between attempts.
	MaxBackoff = 8 * time.Second
	// IdleTimeout gives up on a connection that sends nothing this long.
	IdleTimeout = 60 * time.Second
)

// CacheDirName is the cache's folder in MCODE_HOME.
const CacheDirName = "cache/artifacts"

// Fetcher downloads pinned files into a content-addressed cache.
type Fetcher struct {
	CacheDir string
	Client   *http.Client // nil: a client with the proxy settings of the environment
	Attempts int          // 0: Attempts
	Backoff  time.Duration
	MaxSize  int64 // 0: DefaultMaxSize
	BaseDir  string
	// Progress returns a writer for a download of total bytes (-1:
	// unknown), or nil; done ends it.
	Progress func(total int64, what string) (w io.Writer, done func())
	// Npm is the npm program for npm: sources ("" finds it on PATH).
	Npm string
}

// FetchResult says where a pinned file is and how it got there.
type FetchResult struct {
	Source   string `json:"source"`
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Matched  string `json:"integrity"`
	Cached   bool   `json:"cached"`
	Attempts int    `json:"attempts"`
	Resumed  int    `json:"resumed"`
}

// CachePath is where a digest's file is kept.
func (f *Fetcher) CachePath(d Digest) string {
	return filepath.Join(f.CacheDir, d.Algo, hex.EncodeToString(d.Sum))
}

// Fetch makes sure the file with that integrity is in the cache, getting
// it from source only if it is not.
func (f *Fetcher) Fetch(ctx context.Context, source string, in Integrity) (*FetchResult, error) {
	res := &FetchResult{Source: source}
	for _, d := range in {
		p := f.CachePath(d)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		// A cached file is hashed again: the cache is a folder anyone may
		// write to, and a pin is only as good as its last check.
		got, size, err := VerifyFile(p, in)
		if err == nil {
			res.Path, res.Size, res.Matched, res.Cached = p, size, got.SRI(), true
			return res, nil
		}
		_ = os.Remove(p)
	}
	if err := os.MkdirAll(filepath.Join(f.CacheDir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Join(f.CacheDir, "tmp"), "fetch-*")
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		tmp.Close()
		if !keep {
			os.Remove(tmp.Name())
		}
	}()
	h := NewHasher(in)
	switch {
	case strings.HasPrefix(source, "http://"), strings.HasPrefix(source, "https://"):
		err = f.download(ctx, source, tmp, h, res)
	case strings.HasPrefix(source, "npm:"):
		err = f.npmPack(ctx, strings.TrimPrefix(source, "npm:"), tmp, h)
	default:
		err = f.copyLocal(ctx, source, tmp, h)
	}
	if err != nil {
		return nil, err
	}
	d, err := h.Match(source)
	if err != nil {
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		return nil, err
	}
	dst := f.CachePath(d)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return nil, err
	}
	keep = true
	res.Path, res.Size, res.Matched = dst, h.Size(), d.SRI()
	return res, nil
}

func (f *Fetcher) maxSize() int64 {
	if f.MaxSize > 0 {
		return f.MaxSize
	}
	return DefaultMaxSize
}

func tooLarge(source string, size, limit int64) *tool.Error {
	return &tool.Error{Code: tool.CodeTooLarge,
		Message: fmt.Sprintf("%s is %d bytes or more, past the %d-byte cap (max_size); nothing was kept", source, size, limit),
		Hint:    "raise max_size if the file is meant to be that large"}
}

// copyTo copies r into w and the hasher, at most the size cap.
func (f *Fetcher) copyTo(ctx context.Context, w io.Writer, h *Hasher, r io.Reader, source string, progress io.Writer) error {
	buf := make([]byte, 256<<10)
	limit := f.maxSize()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			if h.Size()+int64(n) > limit {
				return tooLarge(source, h.Size()+int64(n), limit)
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			h.Write(buf[:n])
			if progress != nil {
				progress.Write(buf[:n])
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return readError{rerr}
		}
	}
}

func (f *Fetcher) localPath(source string) (string, error) {
	if strings.HasPrefix(source, "file:") {
		u, err := url.Parse(source)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return "", &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("%q is not a file URL this machine can read", source),
				Hint: "write file:///absolute/path, or the path itself"}
		}
		return u.Path, nil
	}
	if strings.Contains(source, "://") {
		return "", &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("%q: fetch reads http://, https://, file:// and npm: sources", source),
			Hint: "give an https:// URL, a local path, or npm:NAME@VERSION"}
	}
	if !filepath.IsAbs(source) && f.BaseDir != "" {
		source = filepath.Join(f.BaseDir, source)
	}
	return source, nil
}

func (f *Fetcher) copyLocal(ctx context.Context, source string, w io.Writer, h *Hasher) error {
	p, err := f.localPath(source)
	if err != nil {
		return err
	}
	src, _, err := fsutil.OpenRegular(p, p)
	if err != nil {
		return err
	}
	defer src.Close()
	return f.copyTo(ctx, w, h, src, source, nil)
}

// retryable is a failure another attempt may cure.
type retryable struct{ err error }

func (e retryable) Error() string { return e.err.Error() }
func (e retryable) Unwrap() error { return e.err }

// download gets url into w, resuming with a Range request after a
// dropped connection, and retrying server errors with backoff.
func (f *Fetcher) download(ctx context.Context, rawURL string, w *os.File, h *Hasher, res *FetchResult) error {
	client := f.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
			ResponseHeaderTimeout: IdleTimeout, TLSHandshakeTimeout: 30 * time.Second}}
	}
	attempts, backoff := f.Attempts, f.Backoff
	if attempts <= 0 {
		attempts = Attempts
	}
	if backoff <= 0 {
		backoff = Backoff
	}
	var progress io.Writer
	var done func()
	defer func() {
		if done != nil {
			done()
		}
	}()
	var validator string // the ETag or Last-Modified a resumed request must still match
	var lastErr error
	for attempt := 1; attempt <= attempts; attempt++ {
		res.Attempts = attempt
		if attempt > 1 {
			wait := backoff << (attempt - 2)
			if wait > MaxBackoff {
				wait = MaxBackoff
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		offset := h.Size()
		err := f.attempt(ctx, client, rawURL, w, h, offset, &validator, &res.Resumed, func(total int64) io.Writer {
			if progress == nil && f.Progress != nil {
				progress, done = f.Progress(total, rawURL)
			}
			return progress
		})
		if err == nil {
			return nil
		}
		var r retryable
		if !errors.As(err, &r) {
			return err
		}
		lastErr = r.err
	}
	return &tool.Error{Code: tool.CodeServerUnavailable,
		Message: fmt.Sprintf("downloading %s failed %d times; last: %v; nothing was kept", rawURL, attempts, lastErr),
		Hint:    "check the network and the URL, then run the command again"}
}

func (f *Fetcher) attempt(ctx context.Context, client *http.Client, rawURL string, w *os.File, h *Hasher, offset int64,
	validator *string, resumed *int, progress func(int64) io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("%q is not a URL: %v", rawURL, err), Hint: "give an http:// or https:// URL"}
	}
	req.Header.Set("User-Agent", "mcode-artifact")
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
		if *validator != "" {
			req.Header.Set("If-Range", *validator)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return err
		}
		return retryable{err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		if offset > 0 { // the server ignored the range: start over
			if err := restart(w, h); err != nil {
				return err
			}
		}
	case resp.StatusCode == http.StatusPartialContent && offset > 0:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != offset {
			if err := restart(w, h); err != nil {
				return err
			}
			return retryable{fmt.Errorf("the server resumed at another offset (%s)", resp.Header.Get("Content-Range"))}
		}
		*resumed++
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("%s: the server answered %s; nothing was kept", rawURL, resp.Status),
			Hint: "check the URL and the version in it"}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("%s: the server answered %s; nothing was kept", rawURL, resp.Status),
			Hint: "the file needs credentials fetch does not send: download it yourself and pass the local path"}
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		return retryable{fmt.Errorf("the server answered %s", resp.Status)}
	default:
		if offset > 0 {
			if err := restart(w, h); err != nil {
				return err
			}
			return retryable{fmt.Errorf("the server answered %s to a resumed request", resp.Status)}
		}
		return &tool.Error{Code: tool.CodeServerUnavailable, Message: fmt.Sprintf("%s: the server answered %s; nothing was kept", rawURL, resp.Status),
			Hint: "check the URL"}
	}
	if v := resp.Header.Get("ETag"); v != "" && !strings.HasPrefix(v, "W/") {
		*validator = v
	} else if v := resp.Header.Get("Last-Modified"); v != "" {
		*validator = v
	}
	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = h.Size() + resp.ContentLength
		if total > f.maxSize() {
			return tooLarge(rawURL, total, f.maxSize())
		}
	}
	idle := time.AfterFunc(IdleTimeout, cancel)
	defer idle.Stop()
	body := &idleReader{r: resp.Body, timer: idle}
	if err := f.copyTo(ctx, w, h, body, rawURL, progress(total)); err != nil {
		var re readError
		if errors.As(err, &re) {
			return retryable{re.err}
		}
		return err
	}
	return nil
}

// idleReader pushes its timer back on every read that brings data.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(IdleTimeout)
	}
	return n, err
}

func restart(w *os.File, h *Hasher) error {
	h.Reset()
	if err := w.Truncate(0); err != nil {
		return err
	}
	_, err := w.Seek(0, io.SeekStart)
	return err
}

// rangeStart reads the first byte of "bytes START-END/TOTAL".
func rangeStart(v string) (int64, bool) {
	v, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, false
	}
	start, _, ok := strings.Cut(v, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(start), 10, 64)
	return n, err == nil
}

// npmPack gets a registry package's tarball with the machine's own npm
// (its registry, its credentials, its cache), so no registry host is
// written anywhere in mcode.
func (f *Fetcher) npmPack(ctx context.Context, spec string, w io.Writer, h *Hasher) error {
	if at := strings.LastIndex(spec, "@"); at <= 0 || at == len(spec)-1 {
		return &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("npm source %q names no version", "npm:"+spec),
			Hint: "pin the version: npm:NAME@VERSION, e.g. npm:@scope/name@1.2.3"}
	}
	npm := f.Npm
	if npm == "" {
		p, err := exec.LookPath("npm")
		if err != nil {
			return &tool.Error{Code: tool.CodeNotFound, Message: "npm is not installed, and the source npm:" + spec + " needs it",
				Hint: "install Node.js and npm, or pin the tarball's URL instead"}
		}
		npm = p
	}
	dir, err := os.MkdirTemp(filepath.Join(f.CacheDir, "tmp"), "npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, npm, "pack", spec, "--json", "--ignore-scripts", "--pack-destination", dir)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(lastLines(stderr.String(), 6))
		code := tool.CodeServerUnavailable
		if strings.Contains(msg, "E404") || strings.Contains(msg, "ETARGET") {
			code = tool.CodeNotFound
		}
		return &tool.Error{Code: code, Message: fmt.Sprintf("npm pack %s failed (%v): %s", spec, err, msg),
			Hint: "check the package name and version (npm view NAME@VERSION), and npm's registry settings"}
	}
	var packed []struct {
		Filename string `json:"filename"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil || len(packed) != 1 {
		return fmt.Errorf("npm pack %s printed no tarball name: %s", spec, lastLines(stdout.String(), 4))
	}
	src, err := os.Open(filepath.Join(dir, filepath.Base(packed[0].Filename)))
	if err != nil {
		return err
	}
	defer src.Close()
	return f.copyTo(ctx, w, h, src, "npm:"+spec, nil)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
