package fetch

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// Where fetch keeps files, under MCODE_HOME.
const (
	// CacheDirName holds pages by URL: KEY.json (what the server said),
	// KEY.DIGEST.body (the body) and KEY.DIGEST.VARIANT.txt (its text
	// in a format), each written atomically.
	CacheDirName = "cache/fetch"
	// SavedDirName holds bodies that are not text (result.saved), by
	// digest.
	SavedDirName = "downloads"
)

// cacheDir is the cache of one data directory.
type cacheDir struct{ dir string }

// cacheEntry is what the cache keeps of a response besides its body.
type cacheEntry struct {
	URL          string    `json:"url"`
	FinalURL     string    `json:"final_url"`
	Status       int       `json:"status"`
	ContentType  string    `json:"content_type"`
	Kind         string    `json:"kind"`
	MIME         string    `json:"mime"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	Fetched      time.Time `json:"fetched"`
	Redirects    []Hop     `json:"redirects"`
	Bytes        int64     `json:"bytes"`
	Digest       string    `json:"sha256"`
}

// fresh says whether the entry may be used without asking the server.
func (e *cacheEntry) fresh(now time.Time) bool {
	age := now.Sub(e.Fetched)
	return age >= -time.Minute && age < CacheFresh
}

// key names a URL's files: the first 128 bits of its SHA-256.
func cacheKey(u *url.URL) string {
	sum := sha256.Sum256([]byte(u.String()))
	return hex.EncodeToString(sum[:16])
}

func (cd *cacheDir) path(u *url.URL, suffix string) string {
	return filepath.Join(cd.dir, cacheKey(u)+suffix)
}

func (e *cacheEntry) short() string { return e.Digest[:16] }

// load reads the entry of u, or nil when there is none that fits.
func (cd *cacheDir) load(u *url.URL) *cacheEntry {
	data, err := os.ReadFile(cd.path(u, ".json"))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.URL != redact(u) || len(e.Digest) != 64 || e.Status != 200 {
		return nil
	}
	return &e
}

// store keeps body and its entry: the body first, then the entry that
// names it, so a reader never finds an entry without its body.
func (cd *cacheDir) store(u *url.URL, e *cacheEntry, body []byte) error {
	sum := sha256.Sum256(body)
	e.Digest = hex.EncodeToString(sum[:])
	if err := os.MkdirAll(cd.dir, 0o700); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomicNoSync(cd.path(u, "."+e.short()+".body"), body, 0o600); err != nil {
		return err
	}
	if err := cd.touch(u, e); err != nil {
		return err
	}
	cd.prune(u, e.short())
	return nil
}

// touch writes the entry again (after a 304, with its new time).
func (cd *cacheDir) touch(u *url.URL, e *cacheEntry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomicNoSync(cd.path(u, ".json"), data, 0o600)
}

// prune removes the files of u's older bodies.
func (cd *cacheDir) prune(u *url.URL, keep string) {
	key := cacheKey(u)
	names, _ := filepath.Glob(filepath.Join(cd.dir, key+".*"))
	for _, n := range names {
		rest := strings.TrimPrefix(filepath.Base(n), key+".")
		if rest != "json" && !strings.HasPrefix(rest, keep+".") {
			os.Remove(n)
		}
	}
}

// drop forgets u (its files are damaged or missing).
func (cd *cacheDir) drop(u *url.URL) {
	os.Remove(cd.path(u, ".json"))
	cd.prune(u, "")
}

var errCacheDamaged = errors.New("the cached copy is damaged")

// body reads the cached body of e, checked against its digest.
func (cd *cacheDir) body(u *url.URL, e *cacheEntry) ([]byte, error) {
	data, err := os.ReadFile(cd.path(u, "."+e.short()+".body"))
	if err != nil {
		return nil, errCacheDamaged
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.Digest {
		return nil, errCacheDamaged
	}
	return data, nil
}

// text is a body made into text in one variant, with what was learnt
// making it. Its file is that header as one JSON line, then the text.
type text struct {
	Title string   `json:"title,omitempty"`
	Pages int      `json:"pages,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Size is the whole text's length (and checks the file is whole).
	Size int `json:"size"`
	// Body is the text from byte base on: all of it when it was just
	// made, the page asked for when it was read from the cache.
	Body string `json:"-"`
	base int
}

// window is how much of a cached text a page reads: the output cap and
// the bytes a cut may look at past it.
const window = MaxOutputBytes + 8

// loadText reads the text of e in variant from offset on (window bytes),
// if it was made before: a cache hit reads one page, not the page's
// whole text.
func (cd *cacheDir) loadText(u *url.URL, e *cacheEntry, variant string, offset int) (*text, bool) {
	f, err := os.Open(cd.path(u, "."+e.short()+"."+variant+".txt"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	head, err := bufio.NewReader(f).ReadBytes('\n')
	var t text
	if err != nil || json.Unmarshal(head, &t) != nil || t.Size < 0 {
		return nil, false
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != int64(len(head))+int64(t.Size) {
		return nil, false
	}
	t.base = min(max(offset, 0), t.Size)
	buf := make([]byte, min(window, t.Size-t.base))
	if _, err := f.ReadAt(buf, int64(len(head))+int64(t.base)); err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	t.Body = string(buf)
	return &t, true
}

// storeText keeps the text of e in variant; a failure only costs the
// next call the conversion.
func (cd *cacheDir) storeText(u *url.URL, e *cacheEntry, variant string, t *text) {
	t.Size = len(t.Body)
	head, err := json.Marshal(t)
	if err != nil {
		return
	}
	data := make([]byte, 0, len(head)+1+len(t.Body))
	data = append(append(append(data, head...), '\n'), t.Body...)
	_ = fsutil.WriteFileAtomicNoSync(cd.path(u, "."+e.short()+"."+variant+".txt"), data, 0o600)
}
