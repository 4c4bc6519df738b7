// Package fetch is the web_fetch tool: one web page as a model should
// read it — HTML as its main text in Markdown, JSON pretty, PDF text,
// images fitted to the model — paged through the output cap, fetched
// only from public addresses (or hosts a person allowed), within a time
// and size bound, and cached for a quarter of an hour.
package fetch

import (
	"context"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/imagefit"
	"github.com/mcode-dev/mcode/pkg/safenet"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name; CommandName is its command's, which callers
// may use as the tool's name too.
const (
	Name        = "web_fetch"
	CommandName = "fetch"
)

// Limits of one call. They are quoted in the help and the description.
const (
	// DefaultTimeout bounds the whole call when the caller sets none;
	// MaxTimeout is the most it may ask.
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 5 * time.Minute
	// ConnectTimeout bounds one TCP connect, and the TLS handshake.
	ConnectTimeout = safenet.ConnectTimeout
	// DefaultMaxBytes bounds the body read (after decompression), as it
	// streams; MaxMaxBytes is the most a caller may ask.
	DefaultMaxBytes = 10 << 20
	MaxMaxBytes     = 100 << 20
	// MaxRedirects is the most redirects followed.
	MaxRedirects = 5
	// MaxOutputBytes caps the text of one call; continuation names the
	// offset of the rest.
	MaxOutputBytes = 32 << 10
	// MaxErrorBytes caps the page text shown with an HTTP error;
	// MaxErrorBodyBytes the bytes of an error page read to make it.
	MaxErrorBytes     = 4 << 10
	MaxErrorBodyBytes = 256 << 10
	// CacheFresh is how long a cached page is used without asking the
	// server again; after it, the server is asked whether it changed.
	CacheFresh = 15 * time.Minute
	// MaxImagePixels bounds the pixels decoded from one image.
	MaxImagePixels = 64_000_000
)

// Output formats of an HTML page.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatRaw      = "raw"
)

// Formats are the values of format.
var Formats = []string{FormatMarkdown, FormatText, FormatRaw}

// Kinds of content.
const (
	KindHTML   = "html"
	KindJSON   = "json"
	KindText   = "text"
	KindPDF    = "pdf"
	KindImage  = "image"
	KindBinary = "binary"
)

// Cache states of a call.
const (
	CacheHit         = "hit"         // fresh: no request was made
	CacheRevalidated = "revalidated" // the server answered 304 Not Modified
	CacheMiss        = "miss"        // fetched, and stored
	CacheNotStored   = "not_stored"  // fetched, not storable (see notes)
	CacheOff         = "off"         // no_cache
)

// Why a body was cut.
const (
	CutMaxBytes = "max_bytes"
	CutTimeout  = "timeout"
)

// Params are the tool's parameters.
type Params struct {
	URL      string    `json:"url"`
	Format   string    `json:"format,omitempty"`
	Offset   int       `json:"offset,omitempty"`
	MaxBytes SizeParam `json:"max_bytes,omitempty"`
	// Timeout is in seconds.
	Timeout float64 `json:"timeout,omitempty"`
	NoCache bool    `json:"no_cache,omitempty"`
}

// SizeParam is a byte count given as a number or as text (5MiB).
type SizeParam int64

func (s *SizeParam) UnmarshalJSON(b []byte) error {
	var n int64
	if json.Unmarshal(b, &n) == nil {
		*s = SizeParam(n)
		return nil
	}
	var t string
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("max_bytes is a byte count or text like 5MiB")
	}
	v, err := fsutil.ParseSize(t)
	*s = SizeParam(v)
	return err
}

// Result is the structured answer.
type Result struct {
	// URL is the URL as fetched (its host canonical, a password hidden);
	// FinalURL where the redirects ended.
	URL      string `json:"url"`
	FinalURL string `json:"final_url"`
	Status   int    `json:"status"`
	// ContentType is the server's header; Kind what mcode took the body
	// for, MIME its type.
	ContentType string `json:"content_type"`
	Kind        string `json:"kind"`
	MIME        string `json:"mime"`
	// Bytes is the body as received (decompressed); BodyCut says why it
	// ends early (max_bytes, timeout), null when it is whole.
	Bytes   int64   `json:"bytes"`
	BodyCut *string `json:"body_cut"`
	// Format is how the text was made: an HTML page's markdown or text,
	// json (indented), text (as it is, a PDF's pages) or raw (the body
	// as it came); "" for images and saved files.
	Format string `json:"format"`
	Title  string `json:"title,omitempty"`
	// Text is the page of the converted text shown: byte offsets, from 0.
	Text *Span `json:"text"`
	// Redirects are the hops before FinalURL, in order.
	Redirects []Hop `json:"redirects"`
	// Cache says how the cache served the call; CachedAt is when the
	// body was fetched.
	Cache    string     `json:"cache"`
	CachedAt *time.Time `json:"cached_at"`
	// Saved is the file a body that is not text went to.
	Saved *string  `json:"saved"`
	Pages *int     `json:"pages,omitempty"`
	Media *Media   `json:"media,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// Span is a part of the converted text.
type Span struct {
	Offset int `json:"offset"`
	End    int `json:"end"`
	Total  int `json:"total"`
}

// Hop is one redirect: the URL that answered it, its status and where
// it sent the request.
type Hop struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	To     string `json:"to"`
}

// Media is an image as sent to the model (as read's result.media).
type Media struct {
	MIME     string `json:"mime"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
	Original struct {
		MIME   string `json:"mime"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Bytes  int64  `json:"bytes"`
	} `json:"original"`
	Resized bool `json:"resized"`
}

// Options are what the tool needs from its process.
type Options struct {
	// UserAgent is sent with every request (mcode/VERSION).
	UserAgent string
	// Resolver looks host names up; nil is the system's.
	Resolver safenet.Resolver
	// Fence, when set, runs on each connection the address check let
	// through (tests keep every connection on loopback with it).
	Fence func(network, address string) error
	// RootCAs, when set, are the only certificate authorities trusted
	// (tests serve HTTPS with their own).
	RootCAs *x509.CertPool
}

var (
	//go:embed web_fetch.md
	description string
	//go:embed web_fetch.schema.json
	schema string
)

// Tool is the registry entry.
func Tool(o Options) *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, OtherNames: []string{CommandName}, Mode: tool.Parallel,
		// The call bounds itself and answers with what arrived; the
		// dispatcher's limit is a backstop past the longest it may ask.
		Timeout:     MaxTimeout + time.Minute,
		Facts:       tool.Facts{ReadOnly: true, OpenWorld: true},
		Aliases:     map[string]tool.Alias{"uri": {Param: "url"}},
		Positional:  []string{"url"},
		URLParam:    "url",
		Description: description, Schema: schema,
		Data: map[string]any{
			"DefaultTimeoutS": int(DefaultTimeout.Seconds()),
			"MaxTimeoutS":     int(MaxTimeout.Seconds()),
			"ConnectTimeoutS": int(ConnectTimeout.Seconds()),
			"DefaultMaxBytes": fsutil.HumanBytes(DefaultMaxBytes),
			"MaxMaxBytes":     fsutil.HumanBytes(MaxMaxBytes),
			"MaxRedirects":    MaxRedirects,
			"MaxOutputKiB":    MaxOutputBytes >> 10,
			"CacheFreshMin":   int(CacheFresh.Minutes()),
			"CacheDir":        CacheDirName,
			"SavedDir":        SavedDirName,
			"Formats":         strings.Join(Formats, ", "),
			"ImageMIMEs":      strings.Join(imagefit.MIMEs, ", "),
		},
	}, o.run)
}

// networkOff says whether the person turned the sandbox's network off
// (sandbox.network: off): fetch then makes no request, as a command in the
// sandbox could not.
func networkOff(cfg *config.Config) bool {
	n := sandboxNetwork(cfg)
	return len(n) == 1 && strings.TrimSpace(n[0]) == config.SandboxNetworkOff
}

// networkPlaces are the places sandbox.network allows (host:port, :port,
// port), or nil when the network is on or off.
func networkPlaces(cfg *config.Config) []string {
	n := sandboxNetwork(cfg)
	if len(n) == 1 && (strings.TrimSpace(n[0]) == config.SandboxNetworkOn || strings.TrimSpace(n[0]) == config.SandboxNetworkOff) {
		return nil
	}
	return n
}

func sandboxNetwork(cfg *config.Config) []string {
	if cfg == nil {
		return nil
	}
	return cfg.Sandbox.Network
}

// placeAllowed says whether a request to host and port goes to one of
// the places: host:port names both, :port or a bare port any host.
func placeAllowed(places []string, host, port string) bool {
	for _, p := range places {
		p = strings.TrimSpace(p)
		h, pp := "", p
		if i := strings.LastIndexByte(p, ':'); i >= 0 {
			h, pp = p[:i], p[i+1:]
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if pp == port && (h == "" || strings.EqualFold(h, host)) {
			return true
		}
	}
	return false
}

// allowList is fetch.allowHosts of the config. It is a policy key: only
// the trusted layers (the system and user config files) may set it.
func allowList(cfg *config.Config) (*safenet.AllowList, error) {
	if cfg == nil {
		return nil, nil
	}
	return safenet.ParseAllowList(cfg.Fetch.AllowHosts)
}

// now is the cache's clock.
func now(env *tool.Env) time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// run is one call: parameters, the cache, the request, the content.
func (o Options) run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	start := time.Now()
	if p.Format == "" {
		p.Format = FormatMarkdown
	}
	if p.Offset < 0 {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("offset %d: it is a byte of the page's text, from 0", p.Offset),
			Hint: "use the next_offset a truncated result gives"}
	}
	maxBytes := int64(p.MaxBytes)
	switch {
	case maxBytes == 0:
		maxBytes = DefaultMaxBytes
	case maxBytes < 1 || maxBytes > MaxMaxBytes:
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("max_bytes %d: it is 1 byte to %s", maxBytes, fsutil.HumanBytes(MaxMaxBytes)),
			Hint:    "e.g. --max-bytes 20MiB"}
	}
	var notes []string
	limit := DefaultTimeout
	if p.Timeout > 0 {
		limit = time.Duration(p.Timeout * float64(time.Second))
		if limit > MaxTimeout {
			notes = append(notes, fmt.Sprintf("timeout %s cut to the %s maximum", limit, MaxTimeout))
			limit = MaxTimeout
		}
	}
	deadline := start.Add(limit)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	u, err := safenet.ParseURL(p.URL)
	if err != nil {
		var ue *safenet.URLError
		if errors.As(err, &ue) {
			return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: "cannot fetch " + ue.Error(),
				Hint: "give an http:// or https:// URL, e.g. mcode fetch https://go.dev/doc/; read local files with mcode read"}
		}
		return nil, err
	}
	if networkOff(env.Config) {
		return nil, &tool.Error{Code: tool.CodeDenied,
			Message: "the sandbox's network is off (sandbox.network: off): fetch makes no request",
			Hint:    "a person can turn the network on in the user config; until then, work from what is on disk"}
	}
	allow, err := allowList(env.Config)
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeUsage, Message: "config: key fetch.allowHosts: " + err.Error(),
			Hint: "list host names, *.domain, IP addresses or CIDR prefixes"}
	}
	c := &call{opts: o, env: env, params: p, url: u, maxBytes: maxBytes, deadline: deadline, allow: allow, notes: notes}
	return c.do(ctx)
}

// redact hides a URL's user information, a password or a token given as
// the user name (for output, results and files).
func redact(u *url.URL) string { return safenet.Redacted(u) }
