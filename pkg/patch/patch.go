// Package patch is the apply_patch tool: a patch in Codex's format or a
// unified diff, applied to many files all or nothing, each file located
// hunk by hunk in tiers and rewritten byte for byte by the edit engine.
package patch

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "apply_patch"

// Timeout is the default time limit of a call, mostly spent waiting for
// another process's lock.
const Timeout = 60 * time.Second

// MaxDiffBytes caps the unified diff of the whole change; the counts stay
// exact past it.
const MaxDiffBytes = textedit.MaxDiffBytes

// MaxPatchMiB caps the patch itself.
const MaxPatchMiB = 64

// Params are the tool's parameters.
type Params struct {
	Input string `json:"input"`
	// Check applies nothing and answers as if it had.
	Check bool `json:"check,omitempty"`
	// Strip is patch -p's count for a unified diff's paths.
	Strip *int `json:"strip,omitempty"`
}

// FileReport is what the patch did to one file.
type FileReport struct {
	Op   string  `json:"op"`
	Path string  `json:"path"`
	To   *string `json:"to"`
	// Hunks counts the file's hunks; Tiers says, hunk by hunk, the tier
	// that located it.
	Hunks     int      `json:"hunks"`
	Tiers     []string `json:"tiers"`
	Additions int      `json:"additions"`
	Removals  int      `json:"removals"`
	OldSHA256 *string  `json:"old_sha256"`
	NewSHA256 *string  `json:"new_sha256"`
	// Mode is the file's new mode when the patch changes it.
	Mode string `json:"mode,omitempty"`
	// Unchanged: an added file was already there with exactly that
	// content, and was left alone.
	Unchanged bool `json:"unchanged,omitempty"`
}

// Result is what a patch did.
type Result struct {
	Format        string       `json:"format"`
	Files         []FileReport `json:"files"`
	Additions     int          `json:"additions"`
	Removals      int          `json:"removals"`
	Diff          string       `json:"diff"`
	DiffTruncated bool         `json:"diff_truncated"`
	Check         bool         `json:"check"`
}

var (
	//go:embed apply_patch.md
	description string
	//go:embed apply_patch.schema.json
	schema string
)

// limits are the constants the description and schema quote.
var limits = map[string]any{
	"MaxDiffKiB":  MaxDiffBytes >> 10,
	"MaxFileMiB":  textedit.MaxFileMiB,
	"MaxPatchMiB": MaxPatchMiB,
}

// Tool is the registry entry of apply_patch.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Sequential, Timeout: Timeout,
		// guard check apply_patch TEXT judges the patch TEXT (mcode
		// patch's own positional is a file holding it).
		Positional:  []string{"input"},
		Facts:       tool.Facts{Destructive: true},
		Aliases:     map[string]tool.Alias{"patch": {Param: "input"}},
		Paths:       paths,
		Description: description, Schema: schema, Data: limits,
	}, Run)
}

// paths lists every path a call's patch touches, for the path policy; a
// patch that does not parse touches none (the call then fails on it).
func paths(args json.RawMessage) []tool.PathUse {
	var p Params
	if json.Unmarshal(args, &p) != nil || len(p.Input) > MaxPatchMiB<<20 {
		return nil
	}
	parsed, err := parsePatch(p.Input, p.Strip)
	if err != nil {
		return nil
	}
	var out []tool.PathUse
	for _, op := range parsed.ops {
		if op.copyFrom != "" {
			out = append(out, tool.PathUse{Path: op.copyFrom})
		}
		switch {
		case op.op == OpDelete:
			out = append(out, tool.PathUse{Path: op.path, Write: true, Delete: true})
		case op.moveTo != "":
			out = append(out, tool.PathUse{Path: op.path, Write: true, Delete: true}, tool.PathUse{Path: op.moveTo, Write: true})
		default:
			out = append(out, tool.PathUse{Path: op.path, Write: true})
		}
	}
	return out
}

// Run applies a patch.
func Run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	if len(p.Input) > MaxPatchMiB<<20 {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("the patch is %d MiB, more than the %d MiB apply_patch takes", len(p.Input)>>20, MaxPatchMiB),
			Hint:    "split it into several patches"}
	}
	parsed, err := parsePatch(p.Input, p.Strip)
	if err != nil {
		return nil, err
	}
	pl := &plan{env: env}
	defer pl.release()
	if err := pl.prepare(ctx, parsed.ops); err != nil {
		return failed(err)
	}
	if err := pl.run(parsed.ops); err != nil {
		return failed(err)
	}
	res := &Result{Format: parsed.format, Files: pl.reports, Diff: pl.diff.String(), DiffTruncated: pl.diffCut, Check: p.Check}
	if res.DiffTruncated {
		res.Diff += fmt.Sprintf("… diff cut at %d KiB\n", MaxDiffBytes>>10)
	}
	for _, r := range res.Files {
		res.Additions += r.Additions
		res.Removals += r.Removals
	}
	if !p.Check {
		if err := pl.commit(ctx, pl.actions()); err != nil {
			return nil, err
		}
	}
	return &tool.Response{Output: output(res), Result: res}, nil
}

// failed turns a refusal into the envelope's error, with its facts as
// the result.
func failed(err error) (*tool.Response, error) {
	var f *failure
	if errors.As(err, &f) {
		return &tool.Response{Result: f.info}, f.err
	}
	return nil, err
}

// output is the text a model reads: the summary Codex's models expect,
// the hunks found only by a looser tier, then the diff.
func output(r *Result) string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, f := range r.Files {
		switch f.Op {
		case OpAdd:
			fmt.Fprintf(&b, "A %s\n", f.Path)
		case OpDelete:
			fmt.Fprintf(&b, "D %s\n", f.Path)
		case OpMove:
			fmt.Fprintf(&b, "M %s\n", *f.To)
		default:
			fmt.Fprintf(&b, "M %s\n", f.Path)
		}
	}
	if r.Check {
		b.WriteString("(check only: nothing was written)\n")
	}
	for _, f := range r.Files {
		var loose []string
		for i, t := range f.Tiers {
			if t != TierExact {
				loose = append(loose, fmt.Sprintf("hunk %d: %s", i+1, t))
			}
		}
		if len(loose) > 0 {
			fmt.Fprintf(&b, "%s: located with whitespace or Unicode differences (%s); the file's own context lines were kept\n", f.Path, strings.Join(loose, ", "))
		}
		if f.Op == OpReplace {
			fmt.Fprintf(&b, "%s: deleted and added again, replaced whole\n", f.Path)
		}
		if f.Unchanged {
			fmt.Fprintf(&b, "%s: already held exactly this content; left as it was\n", f.Path)
		}
	}
	b.WriteString(r.Diff)
	return b.String()
}
