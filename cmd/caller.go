package cmd

import (
	"context"
	"encoding/json"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// factoryCaller is the call path batch and mcp serve use: every call
// exactly as a CLI call of the same tool.
type factoryCaller struct{ f *Factory }

func (c factoryCaller) Call(ctx context.Context, name string, args json.RawMessage) *tool.Envelope {
	return executeCall(ctx, c.f, name, args)
}

func (c factoryCaller) List(ctx context.Context) ([]*tool.Tool, error) {
	reg, err := tool.NewRegistry(c.f.Tools()...)
	if err != nil {
		return nil, err
	}
	cfg, err := c.f.Config()
	if err != nil {
		return nil, err
	}
	profile, err := c.f.profile(cfg)
	if err != nil {
		return nil, err
	}
	return reg.Visible(profile), nil
}

// Lookup finds a tool the profile may see (batch needs its mode before
// it runs anything).
func (c factoryCaller) Lookup(ctx context.Context, name string) (*tool.Tool, error) {
	tools, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		if tool.NormalizeName(t.Name) == tool.NormalizeName(name) {
			return t, nil
		}
	}
	return nil, nil
}
