package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/artifact"
)

// NewCmdArtifact builds `mcode artifact verify|fetch|extract|sync`.
func NewCmdArtifact(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "artifact <command>",
		Short: "Pinned, checksummed downloads and all-or-nothing archive extraction",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(
		newCmdArtifactVerify(f, runF),
		newCmdArtifactFetch(f, runF),
		newCmdArtifactExtract(f, runF),
		newCmdArtifactSync(f, runF),
	)
	return c
}

func newCmdArtifactVerify(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.VerifyName}
	c := &cobra.Command{
		Use:     "verify FILE",
		Short:   "Check a file against its pinned hash",
		Example: "  mcode artifact verify pkg.tgz --integrity \"$(npm view left-pad@1.3.0 dist.integrity)\"",
		RunE:    f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}

func newCmdArtifactFetch(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.FetchName}
	c := &cobra.Command{
		Use:   "fetch URL",
		Short: "Download a pinned file into the cache (MCODE_HOME/" + artifact.CacheDirName + "), verified before it is kept",
		Example: `  mcode artifact fetch https://example.org/tool-1.2.tgz --integrity sha256:9f86d0… --dest vendor/tool.tgz
  mcode artifact fetch npm:left-pad@1.3.0 --integrity sha512-…`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}

func newCmdArtifactExtract(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.ExtractName}
	c := &cobra.Command{
		Use:   "extract ARCHIVE",
		Short: "Extract an archive all or nothing, refusing hostile entries, replacing --dest only when every check passed",
		Example: `  mcode artifact extract pkg.tgz --dest vendor/pkg --strip 1 --integrity sha512-…
  mcode artifact extract pkg.tgz --dest out --strip 1 --entry package.json --expect-json package.json:version=1.3.0`,
		RunE: f.runTool(opts, runF),
	}
	// --entry is entries one at a time, as text (PATH[=sha256:HEX][:RENAME]).
	c.Flags().StringArray("entry", nil, "take only this entry (name after --strip), optionally =sha256:HEX and :RENAME; repeatable")
	fieldFlag(c, "entry", "entry")
	return f.toolCommand(c, opts)
}

func newCmdArtifactSync(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.SyncName}
	c := &cobra.Command{
		Use:   "sync",
		Short: "Bring every destination of a lock file to its pinned state (a second run does nothing)",
		Long: `Bring every destination of a lock file to its pinned state. The lock file:

  artifacts:
    - name: mcode-tools
      source: npm:@minimax-ai/code@0.3.11    # a URL, a local path, or npm:NAME@VERSION
      integrity: sha512-…                    # the archive's hash
      strip: 1
      entries:                               # names after strip; omit to take everything
        - {path: embedded/mcode-tools/cli.mjs, sha256: 3b4c…, rename: cli.mjs}
        - {path: embedded/mcode-tools/manifest.json, rename: manifest.json}
        - {path: THIRD_PARTY_NOTICES.md, rename: MCODE_TOOLS_NOTICES.md}
      expect_json:
        embedded/mcode-tools/manifest.json: {name: "@minimax/mcode-tools", version: 0.0.4}
      dest: embedded/mcode-tools             # relative to the lock file

Each dest gets a stamp ` + artifact.StampName + ` recording what was synced.`,
		Example: "  mcode artifact sync --lock artifacts.yaml",
		RunE:    f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
