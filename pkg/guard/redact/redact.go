// Package redact masks secrets in text: the built-in patterns (AWS keys,
// provider and forge tokens, private key blocks, bearer tokens, password
// assignments) and any a config adds. Hooks mask tool results with it,
// the audit log masks arguments.
package redact

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mask replaces each secret.
const Mask = "[REDACTED]"

// Default are the built-in patterns (`redact: default`).
var Default = []string{
	`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,                                          // AWS access key id
	`(?i)\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}`,           // AWS secret key
	`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`,                                                // GitHub tokens
	`\bgithub_pat_[A-Za-z0-9_]{22,255}\b`,                                              // GitHub fine-grained tokens
	`\bglpat-[A-Za-z0-9_-]{20,}\b`,                                                     // GitLab tokens
	`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`,                                                // Slack tokens
	`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b`,                                         // OpenAI, Anthropic keys
	`\bAIza[0-9A-Za-z_-]{35}\b`,                                                        // Google API keys
	`\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b`,                                         // Stripe keys
	`\bnpm_[A-Za-z0-9]{36}\b`,                                                          // npm tokens
	`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,                  // JSON Web Tokens
	`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`, // private key blocks
	`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*`,                                          // bearer tokens
	`(?i)\b(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token|client_?secret)\b["']?\s*[:=]\s*["']?[^\s"',;]{6,}`, // key = value
	urlUserinfo, // a URL's user:password@, or a token given as its user name
}

// urlUserinfo is a URL's user information holding a password, or a user
// name long enough to be a token (https://TOKEN@host/); a short name
// alone (ssh://git@host) is left. Its match keeps "://" and "@".
const urlUserinfo = "://(?:[^\\s/?#@:\"'<>`\\\\]*:[^\\s/?#@\"'<>`\\\\]+|[A-Za-z0-9._~%+-]{16,})@"

// defaultHints are, for each of Default in order, fixed parts (lower
// case) of which every match holds at least one: a text with none of a
// pattern's hints holds no match of it.
var defaultHints = [][]string{
	{"akia", "asia", "abia", "acca"},
	{"secret"},
	{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
	{"github_pat_"},
	{"glpat-"},
	{"xox"},
	{"sk-"},
	{"aiza"},
	{"sk_", "rk_"},
	{"npm_"},
	{"eyj"},
	{"private key"},
	{"bearer"},
	{"passw", "pwd", "secret", "key", "token"},
	{"://"},
}

// Redactor masks the matches of its patterns, compiled on first use.
type Redactor struct {
	patterns []string
	// filtered: only the default patterns, so a text is searched with
	// just those whose fixed parts it holds, compiled on first use of
	// that set: one that holds none is left alone without compiling
	// anything (a typical call pays microseconds, not the millisecond of
	// the compile), and source code full of "key" and "token" pays for
	// one pattern, not fourteen. A pattern that cannot match anywhere
	// in a text changes none of the alternation's matches there, so the
	// result is what the whole set gives.
	filtered bool
	once     sync.Once
	re       *regexp.Regexp
	subsets  sync.Map // uint32 (bits of Default) → *regexp.Regexp
}

// New checks patterns; "default" stands for Default.
func New(patterns []string) (*Redactor, error) {
	r := &Redactor{filtered: true}
	hasDefault := false
	for _, p := range patterns {
		if p == "default" {
			if !hasDefault {
				r.patterns = append(r.patterns, Default...)
			}
			hasDefault = true
			continue
		}
		if _, err := regexp.Compile(p); err != nil {
			return nil, err
		}
		r.patterns = append(r.patterns, p)
		r.filtered = false
	}
	return r, nil
}

func (r *Redactor) compiled() *regexp.Regexp {
	r.once.Do(func() {
		if len(r.patterns) > 0 {
			r.re = alternation(r.patterns)
		}
	})
	return r.re
}

func alternation(patterns []string) *regexp.Regexp {
	return regexp.MustCompile("(?:" + strings.Join(patterns, ")|(?:") + ")")
}

// regexpFor is the regexp to search s with, nil when nothing in s can
// match.
func (r *Redactor) regexpFor(s string) *regexp.Regexp {
	if r == nil || len(r.patterns) == 0 || s == "" {
		return nil
	}
	if !r.filtered {
		return r.compiled()
	}
	bits := hinted(s)
	if bits == 0 {
		return nil
	}
	if re, ok := r.subsets.Load(bits); ok {
		return re.(*regexp.Regexp)
	}
	var some []string
	for i, p := range r.patterns {
		if bits&(1<<i) != 0 {
			some = append(some, p)
		}
	}
	re, _ := r.subsets.LoadOrStore(bits, alternation(some))
	return re.(*regexp.Regexp)
}

// none says that nothing in s can match.
func (r *Redactor) none(s string) bool {
	return r == nil || len(r.patterns) == 0 || s == "" || (r.filtered && hinted(s) == 0)
}

// hinted has bit i set when s holds one of defaultHints[i].
func hinted(s string) uint32 {
	// (?i) folds ſ (U+017F) with s, which ToLower leaves alone.
	lower := strings.ReplaceAll(strings.ToLower(s), "ſ", "s")
	var bits uint32
	for i, hs := range defaultHints {
		for _, h := range hs {
			if strings.Contains(lower, h) {
				bits |= 1 << i
				break
			}
		}
	}
	return bits
}

var builtin = sync.OnceValue(func() *Redactor {
	r, _ := New([]string{"default"})
	return r
})

// Builtin is the redactor of the default patterns.
func Builtin() *Redactor { return builtin() }

// String masks s.
func (r *Redactor) String(s string) string {
	re := r.regexpFor(s)
	if re == nil {
		return s
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "://") && strings.HasSuffix(m, "@") {
			return "://" + Mask + "@" // a URL's user information
		}
		return Mask
	})
}

// Value masks every string inside a JSON-shaped value (maps, slices) and
// returns the masked copy; any other Go value goes through JSON first.
func (r *Redactor) Value(v any) any {
	if r == nil || len(r.patterns) == 0 || v == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return r.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Value(e)
		}
		return out
	case bool, float64, json.Number, int, int64:
		return v
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if dec.Decode(&generic) != nil {
		return v
	}
	return r.Value(generic)
}

// JSON masks the strings of a JSON document.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if r.none(string(raw)) {
		return raw
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return json.RawMessage(r.String(string(raw)))
	}
	out, err := json.Marshal(r.Value(v))
	if err != nil {
		return raw
	}
	return out
}

// Preview is the JSON document masked and, past max bytes, cut into a
// JSON string that ends with "…": what logs and approvals keep of a
// call's arguments.
func (r *Redactor) Preview(raw json.RawMessage, max int) json.RawMessage {
	if len(raw) > max+previewMargin {
		// Only the first max bytes are kept: strings are cut well past
		// that before they are masked (a patch of megabytes need not be
		// searched for secrets nobody will see), far enough that no secret
		// that starts within max is cut short of its pattern.
		var v any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if data, err := json.Marshal(cutStrings(v, max+previewMargin)); err == nil {
				raw = data
			}
		}
	}
	masked := r.JSON(raw)
	if len(masked) > max {
		cut, _ := json.Marshal(string(masked[:max]) + "…")
		return cut
	}
	if !json.Valid(masked) {
		s, _ := json.Marshal(string(masked))
		return s
	}
	return masked
}

// previewMargin is how far past a preview's end strings are kept for
// masking: longer than any secret a pattern matches.
const previewMargin = 64 << 10

// cutStrings shortens every string of a JSON-shaped value to at most n
// bytes (on a rune boundary).
func cutStrings(v any, n int) any {
	switch x := v.(type) {
	case string:
		if len(x) <= n {
			return x
		}
		cut := n
		for cut > 0 && !utf8.RuneStart(x[cut]) {
			cut--
		}
		return x[:cut]
	case map[string]any:
		for k, e := range x {
			x[k] = cutStrings(e, n)
		}
	case []any:
		for i, e := range x {
			x[i] = cutStrings(e, n)
		}
	}
	return v
}
