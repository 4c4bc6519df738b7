package osshell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// Probe limits: the probe of one executable gets ProbeTimeout; what it
// found is trusted for ProbeTTL (an App Control policy may change) or
// until the executable itself changes.
const (
	ProbeTimeout = 5 * time.Second
	ProbeTTL     = 24 * time.Hour
)

// Prober finds each PowerShell's language mode once and remembers it, in
// memory and in CacheFile, so that later mcode processes do not pay for
// starting PowerShell twice per command.
type Prober struct {
	// Run runs argv and returns its stdout (the caller bounds it with
	// ctx's deadline).
	Run func(ctx context.Context, argv []string) (string, error)
	// CacheFile keeps what was found ("" keeps it in memory only).
	CacheFile string
	Now       func() time.Time

	mu     sync.Mutex
	memory map[string]probed
}

// probed is one executable's mode, valid while the file is unchanged.
type probed struct {
	Mode     LanguageMode `json:"mode"`
	Size     int64        `json:"size"`
	ModTime  time.Time    `json:"mod_time"`
	ProbedAt time.Time    `json:"probed_at"`
}

func (p *Prober) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Mode is sh's language mode: FullLanguage for a shell that is not
// PowerShell, the probed mode for one that is, and "" when the probe
// failed (Invoke then uses the launcher, which works in any mode).
func (p *Prober) Mode(ctx context.Context, sh Shell) LanguageMode {
	if !sh.Kind.IsPowerShell() {
		return FullLanguage
	}
	info, err := os.Stat(sh.Path)
	if err != nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.memory == nil {
		p.memory = p.load()
	}
	if c, ok := p.memory[sh.Path]; ok && c.Size == info.Size() && c.ModTime.Equal(info.ModTime()) && p.now().Sub(c.ProbedAt) < ProbeTTL {
		return c.Mode
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	out, err := p.Run(ctx, ProbeArgs(sh))
	mode, ok := ParseLanguageMode(out)
	if err != nil || !ok {
		return "" // not remembered: the next call tries again
	}
	p.memory[sh.Path] = probed{Mode: mode, Size: info.Size(), ModTime: info.ModTime(), ProbedAt: p.now()}
	p.save()
	return mode
}

func (p *Prober) load() map[string]probed {
	m := map[string]probed{}
	if p.CacheFile != "" {
		if data, err := os.ReadFile(p.CacheFile); err == nil {
			_ = json.Unmarshal(data, &m)
		}
	}
	return m
}

// save writes the cache whole (a few lines) so a reader never sees half
// of it; failing only costs a probe later.
func (p *Prober) save() {
	if p.CacheFile == "" {
		return
	}
	data, err := json.Marshal(p.memory)
	if err == nil && os.MkdirAll(filepath.Dir(p.CacheFile), 0o700) == nil {
		_ = fsutil.WriteFileAtomicNoSync(p.CacheFile, data, 0o600)
	}
}
