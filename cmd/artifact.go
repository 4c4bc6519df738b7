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

// artifactCall is the RunE of the artifact subcommands: flags and
// --args, the positional into field, then the call.
func artifactCall(f *Factory, runF func(*CallOptions) error, opts *CallOptions, field string) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := collectArgs(c, f.IO.In, opts, []string{field}, args); err != nil {
			return err
		}
		if c.Flags().Changed("entry") {
			entries, _ := c.Flags().GetStringArray("entry")
			if err := checkUTF8("--entry", entries); err != nil {
				return err
			}
			opts.Args["entries"] = entries
		}
		return callTool(c, f, opts, runF)
	}
}

const integrityUsage = "expected hash: sha512-BASE64 (npm's SRI form; several space-separated, any one matching) or sha256:HEX"

func newCmdArtifactVerify(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.VerifyName}
	c := &cobra.Command{
		Use:         "verify FILE",
		Short:       "Check a file against its pinned hash",
		Example:     "  mcode artifact verify pkg.tgz --integrity \"$(npm view left-pad@1.3.0 dist.integrity)\"",
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{annotationTool: artifact.VerifyName},
		RunE:        artifactCall(f, runF, opts, "path"),
	}
	c.Flags().String("integrity", "", integrityUsage)
	addArgsFlag(c, opts)
	return c
}

func newCmdArtifactFetch(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.FetchName}
	c := &cobra.Command{
		Use:   "fetch URL",
		Short: "Download a pinned file into the cache (MCODE_HOME/" + artifact.CacheDirName + "), verified before it is kept",
		Example: `  mcode artifact fetch https://example.org/tool-1.2.tgz --integrity sha256:9f86d0… --dest vendor/tool.tgz
  mcode artifact fetch npm:left-pad@1.3.0 --integrity sha512-…`,
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{annotationTool: artifact.FetchName},
		RunE:        artifactCall(f, runF, opts, "url"),
	}
	c.Flags().String("integrity", "", integrityUsage)
	c.Flags().String("dest", "", "also copy the verified file here")
	c.Flags().String("max-size", "", "largest file accepted, e.g. 512MiB (default 1 GiB)")
	addArgsFlag(c, opts)
	return c
}

func newCmdArtifactExtract(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: artifact.ExtractName}
	c := &cobra.Command{
		Use:   "extract ARCHIVE",
		Short: "Extract an archive all or nothing, refusing hostile entries, replacing --dest only when every check passed",
		Example: `  mcode artifact extract pkg.tgz --dest vendor/pkg --strip 1 --integrity sha512-…
  mcode artifact extract pkg.tgz --dest out --strip 1 --entry package.json --expect-json package.json:version=1.3.0`,
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{annotationTool: artifact.ExtractName},
		RunE:        artifactCall(f, runF, opts, "archive"),
	}
	c.Flags().String("dest", "", "folder to extract into (made, or replaced as a whole)")
	c.Flags().String("integrity", "", "the archive's "+integrityUsage)
	c.Flags().StringArray("entry", nil, "take only this entry (name after --strip), optionally =sha256:HEX and :RENAME; repeatable")
	c.Flags().Int("strip", 0, "drop N leading name components (1 for npm's package/)")
	c.Flags().StringArray("expect-json", nil, "FILE:KEY=VALUE a JSON file of the archive must have (KEY dotted for nested fields); repeatable")
	c.Flags().String("max-size", "", "cap per entry and in total, e.g. 512MiB (default 1 GiB)")
	noField(c, "entry")
	addArgsFlag(c, opts)
	return c
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
		Example:     "  mcode artifact sync --lock artifacts.yaml",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{annotationTool: artifact.SyncName},
		RunE:        artifactCall(f, runF, opts, "lock"),
	}
	c.Flags().String("lock", "", "the lock file")
	addArgsFlag(c, opts)
	return c
}
