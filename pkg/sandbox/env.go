package sandbox

import (
	"slices"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// InputsFor are the policy's inputs for a tool's environment: its root,
// MCODE_HOME and config, and getenv for the environment of what will run
// (nil: the caller's, env.LookupEnv).
func InputsFor(env *tool.Env, getenv func(string) string) Inputs {
	in := Inputs{Root: env.Root, DataDir: env.DataDir, Getenv: getenv}
	if in.Getenv == nil {
		in.Getenv = env.LookupEnv
	}
	if env.Config != nil {
		in.Config = env.Config.Sandbox
	} else {
		in.Config = config.Defaults().Sandbox
	}
	return in
}

// Override lays a server's own sandbox section (mcpServers.NAME.sandbox)
// over the global one: a mode or network it names replaces the global
// one; its writable and readDeny lists add to the global ones. Which
// layer may loosen is the config loader's to decide, as for every policy
// key.
func Override(global, own config.Sandbox) config.Sandbox {
	out := global
	if own.Mode != "" {
		out.Mode = own.Mode
	}
	if len(own.Network) > 0 {
		out.Network = own.Network
	}
	out.Writable = append(slices.Clip(global.Writable), own.Writable...)
	out.ReadDeny = append(slices.Clip(global.ReadDeny), own.ReadDeny...)
	return out
}

// ProtectsAnything says whether a protected path exists in a writable
// place (else holding them costs nothing and promises nothing).
func (p *Policy) ProtectsAnything() bool {
	for _, pr := range append(slices.Clip(p.Protected), p.Pinned...) {
		if !exists(pr) {
			continue
		}
		for _, w := range p.Writable {
			if w.Kind != KindDevice && !w.File && within(pr, w.Path) {
				return true
			}
		}
	}
	return false
}
