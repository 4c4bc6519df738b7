package cmd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/guard"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/guard/audit"
	"github.com/mcode-dev/mcode/pkg/guard/hooks"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// guard plugs the guard, the hooks and the audit into the call path.
// With guard.defaultPolicy allow and no rules only the built-in checks
// (dangerous shell forms, the path policy) can hold a call.
func (f *Factory) guard(cfg *config.Config, o *dispatch.Options) error {
	// With guard.enabled false the rules and the built-in checks allow
	// everything; code a config the caller can write asks to run still
	// waits for a person's trust.
	g, err := guard.New(cfg.Guard)
	if err != nil {
		return configError("", "guard", "%v", err)
	}
	store := f.approvals(cfg)
	approver := &guard.Approver{Guard: g, Store: store, Ask: f.approvalAsker()}
	o.Guard = approver
	root, err := f.RootDir()
	if err != nil {
		return err
	}
	approver.WideRoot = f.wideRoot(root)
	hookCfg := cfg.Hooks
	for _, list := range []*[]config.Hook{&hookCfg.BeforeTool, &hookCfg.AfterTool, &hookCfg.OnError} {
		*list = slices.DeleteFunc(slices.Clone(*list), func(h config.Hook) bool {
			if h.Trust != config.TrustUntrusted || h.Command == "" {
				return false
			}
			layer := h.Layer
			h.Trust, h.Layer = "", ""
			def := tool.NewUntrusted("hook", h.Command, layer, root, h)
			if store.Trusted(def.Digest) {
				return false
			}
			approver.Hooks = append(approver.Hooks, guard.PendingHook{Def: def, Tool: h.Tool})
			return true
		})
	}
	h, err := hooks.New(hookCfg)
	if err != nil {
		return configError("", "hooks", "%v", err)
	}
	if h != nil {
		o.Hooks = h
	}
	if cfg.Audit.Enabled {
		log := audit.Open(f.HomeDir(), cfg.Audit.MaxMiB, f.Now)
		log.Errors = func(err error) { fmt.Fprintf(f.IO.ErrOut, "mcode: audit: %v\n", err) }
		o.Audit = log
	}
	return nil
}

// approvals is the approvals folder, with the person's key to check
// their answers by (none yet: nothing was ever approved).
func (f *Factory) approvals(cfg *config.Config) *approval.Store {
	s := approval.Open(f.HomeDir(), cfg.Guard.ApprovalTTL, f.Now)
	_, s.KeyDir, _ = f.userConfigDirs() // a damaged key honours nothing; approve says why
	return s
}

// approvalAsker asks the person at the terminal, on /dev/tty, when both
// stdin and stderr are one (and never under CI): a caller that is a
// program gets exit 75 at once instead of a prompt nobody reads.
func (f *Factory) approvalAsker() guard.Asker {
	if !f.IO.InTTY || !f.IO.ErrTTY || truthy(f.Getenv("CI")) {
		return nil
	}
	return func(ctx context.Context, question string) (bool, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return false, err
		}
		defer tty.Close()
		fmt.Fprint(tty, "mcode guard: "+question+" [y/N] ")
		answer := make(chan bool, 1)
		go func() {
			yes, _ := readYes(bufio.NewReader(tty))
			answer <- yes
		}()
		select {
		case yes := <-answer:
			return yes, nil
		case <-ctx.Done(): // Ctrl-C is no
			fmt.Fprintln(tty)
			return false, ctx.Err()
		}
	}
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// guardError turns a store error into the contract's shape.
func guardError(err error) error {
	if ae, ok := err.(*approval.Error); ok {
		code := tool.CodeNotFound
		if ae.Code != "unknown" {
			code = tool.CodeUsage
		}
		return &tool.Error{Code: code, Message: ae.Error(), Hint: "`mcode approve` lists the approvals and their state"}
	}
	return err
}
