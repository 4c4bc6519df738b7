package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/fetch"
	"github.com/mcode-dev/mcode/pkg/guide"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// SkillOptions are the options of skill.
type SkillOptions struct {
	// Install is the skills folder to write mcode/SKILL.md into.
	Install string
}

// NewCmdSkill builds `mcode skill`.
func NewCmdSkill(f *Factory, runF func(*SkillOptions) error) *cobra.Command {
	opts := &SkillOptions{}
	c := &cobra.Command{
		Use:   "skill [--install DIR]",
		Short: "Print (or install) SKILL.md, the guide that teaches a model to use mcode from bash",
		Long: `Prints SKILL.md in the Agent Skills format (YAML front matter with name and
description, then Markdown) for this agent and role: the tools it may call,
one line each, the result envelope, when to use -o text, the exit codes,
continuation and archived receipts, approvals and background tasks. It is
generated from the registry, so it never goes stale. --install DIR writes
DIR/mcode/SKILL.md atomically (e.g. ~/.claude/skills).`,
		Example: `  mcode skill -o text
  mcode skill --install ~/.claude/skills
  mcode skill --role explore --install .claude/skills`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return finish(f, skillRun(c, f, opts))
		},
	}
	c.Flags().StringVar(&opts.Install, "install", "", "write DIR/mcode/SKILL.md (atomically) instead of only printing it")
	return c
}

func skillRun(c *cobra.Command, f *Factory, opts *SkillOptions) *tool.Envelope {
	const name = "skill"
	fail := func(err error) *tool.Envelope { return tool.NewEnvelope(name, nil, err) }
	cfg, err := f.Config()
	if err != nil {
		return fail(err)
	}
	profile, err := f.profile(cfg)
	if err != nil {
		return fail(err)
	}
	d, err := f.Dispatcher()
	if err != nil {
		return fail(err)
	}
	tools, err := d.List(c.Context())
	if err != nil {
		return fail(err)
	}
	usages := toolUsages(c.Root())
	data := guide.Data{Role: profile.Role, MaxInlineKiB: cfg.ToolResultCompaction.MaxInlineKiB,
		AutoBackground: cfg.Bash.AutoBackgroundAfter, AutoBackgroundServe: exec.AutoBackgroundServe, MCPConfig: connector.ConfigExample}
	if profile.Agent != "default" {
		data.Agent = profile.Agent
	}
	names := []string{}
	for _, t := range tools {
		def, err := t.Definition()
		if err != nil {
			return fail(err)
		}
		usage := usages[t.Name]
		if usage == "" {
			usage = "mcode call " + t.Name + " --args JSON"
		}
		data.Tools = append(data.Tools, guide.Entry{Name: t.Name, Usage: usage, Summary: guide.Summary(def.Description), Mode: t.Mode})
		names = append(names, t.Name)
		data.Web = data.Web || t.Name == fetch.Name
	}
	text, err := guide.Render(data)
	if err != nil {
		return fail(err)
	}
	result := map[string]any{"name": guide.Name, "agent": profile.Agent, "role": profile.Role, "tools": names, "path": nil}
	if opts.Install != "" {
		dir := (&tool.Env{Root: mustRoot(f), UserHome: f.userHome()}).Abs(opts.Install)
		path, err := guide.Install(dir, text)
		if err != nil {
			return fail(&tool.Error{Code: tool.CodePermission, Message: err.Error(),
				Hint: "--install takes a skills folder you can write to, e.g. ~/.claude/skills"})
		}
		result["path"] = path
	}
	return tool.NewEnvelope(name, &tool.Response{Output: text, Result: result}, nil)
}

// mustRoot is the workspace root, or the current folder when it is bad
// (the error shows on the commands that use it).
func mustRoot(f *Factory) string {
	if root, err := f.RootDir(); err == nil {
		return root
	}
	cwd, _ := f.Getwd()
	return cwd
}

// toolUsages maps each tool to its command line, from the command tree:
// "mcode read PATH [--limit] [--offset] [--pages]".
func toolUsages(root *cobra.Command) map[string]string {
	out := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if n, ok := c.Annotations[annotationTool]; ok {
			out[n] = usageLine(c, false)
		}
		for _, sc := range c.Commands() {
			walk(sc)
		}
	}
	walk(root)
	return out
}
