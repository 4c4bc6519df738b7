package cmdtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Provider serves the command tools of tools.custom and tools.dirs. The
// entries of the config file are checked when it is built; the dirs are
// read on first use, so a call of a built-in tool never reads them.
type Provider struct {
	builtin func(name string) bool
	environ func() []string
	custom  []*Def
	dirs    []string
	// untrustedDirs are named by a config layer the caller can write:
	// their tools wait for a person's trust.
	untrustedDirs []string
	root          string
	// trusted says whether a person trusted a definition (its digest).
	trusted func(digest string) bool

	once  sync.Once
	tools []*tool.Tool
	err   error
}

// NewProvider checks cfg's command tools against each other and against
// the built-in tools (builtin says whether a name is taken). It returns
// nil when nothing is declared. environ is what the programs inherit.
//
// A declaration of a config layer the caller can write stays untrusted
// (its calls wait for a person) until trusted says a person trusted it.
func NewProvider(cfg *config.Config, root string, builtin func(name string) bool, environ func() []string, trusted func(digest string) bool) (*Provider, error) {
	if len(cfg.Tools.Custom) == 0 && len(cfg.Tools.Dirs) == 0 && len(cfg.Tools.UntrustedDirs) == 0 {
		return nil, nil
	}
	p := &Provider{builtin: builtin, environ: environ, dirs: cfg.Tools.Dirs, untrustedDirs: cfg.Tools.UntrustedDirs, root: root, trusted: trusted}
	seen := map[string]string{}
	for i, ct := range cfg.Tools.Custom {
		d, err := newDef(ct, fmt.Sprintf("tools.custom[%d]", i), root)
		if err != nil {
			return nil, err
		}
		if err := p.claim(seen, d); err != nil {
			return nil, err
		}
		if ct.Trust == config.TrustUntrusted {
			d.untrusted(ct.Layer, root, trusted)
		}
		p.custom = append(p.custom, d)
	}
	return p, nil
}

// claim refuses a name a built-in tool or an earlier entry has.
func (p *Provider) claim(seen map[string]string, d *Def) error {
	key := tool.NormalizeName(d.Name)
	if p.builtin(d.Name) {
		return configError(d.Origin, "name %q is the name of a built-in tool; pick another (e.g. team_%s)", d.Name, d.Name)
	}
	if first, dup := seen[key]; dup {
		return configError(d.Origin, "name %q is already taken by %s", d.Name, first)
	}
	seen[key] = d.Origin
	return nil
}

// load builds every tool once: the config's entries, then each dir's. A
// dir or entry that is broken is left out and reported; the rest work.
func (p *Provider) load(env *tool.Env) ([]*tool.Tool, error) {
	p.once.Do(func() {
		var errs []error
		seen := map[string]string{}
		defs := append([]*Def(nil), p.custom...)
		for _, d := range defs {
			seen[tool.NormalizeName(d.Name)] = d.Origin
		}
		for i, dir := range append(slices.Clone(p.dirs), p.untrustedDirs...) {
			dirDefs, err := loadDir(expand(env, dir))
			if err != nil {
				errs = append(errs, err)
			}
			for _, d := range dirDefs {
				if err := p.claim(seen, d); err != nil {
					errs = append(errs, err)
					continue
				}
				if i >= len(p.dirs) {
					d.untrusted("the tools dir "+dir+", named by a config layer the caller can write", p.root, p.trusted)
				}
				defs = append(defs, d)
			}
		}
		for _, d := range defs {
			t, err := p.newTool(d)
			if err != nil {
				errs = append(errs, configError(d.Origin, "%v", err))
				continue
			}
			p.tools = append(p.tools, t)
		}
		p.err = errors.Join(errs...)
	})
	return p.tools, p.err
}

func (p *Provider) newTool(d *Def) (*tool.Tool, error) {
	mode := tool.Sequential
	if d.Mode == string(tool.Parallel) {
		mode = tool.Parallel
	}
	timeout := d.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return tool.NewExternal(tool.External{
		Name: d.Name, Description: d.Description, InputSchema: d.schema,
		Mode: mode, Source: tool.Configured, Timeout: timeout,
		// A program of the team's own reaches past mcode's knowledge; what
		// it changes is what its declaration says.
		Facts:      tool.Facts{ReadOnly: d.ReadOnly, Destructive: d.Destructive, OpenWorld: true},
		Untrusted:  d.trust,
		Escalation: spawn.Escalation,
	}, func(ctx context.Context, env *tool.Env, args json.RawMessage) (*tool.Response, error) {
		return d.Run(ctx, env, p.environ(), args)
	})
}

// Tools lists every command tool.
func (p *Provider) Tools(ctx context.Context, env *tool.Env) ([]*tool.Tool, error) {
	return p.load(env)
}

// Lookup finds a command tool by name. A broken declaration fails the
// lookup of any name not built in: the caller learns of it at once.
func (p *Provider) Lookup(ctx context.Context, env *tool.Env, name string) (*tool.Tool, bool, error) {
	tools, err := p.load(env)
	key := tool.NormalizeName(name)
	for _, t := range tools {
		if tool.NormalizeName(t.Name) == key {
			return t, true, nil
		}
	}
	if err != nil {
		return nil, false, err
	}
	return nil, false, nil
}

// expand resolves a tools dir: ~ and $VAR, relative to the workspace root.
func expand(env *tool.Env, dir string) string {
	return env.Abs(os.Expand(dir, env.LookupEnv))
}
