package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// NewCmdTrash builds `mcode trash list|restore|empty|put`.
func NewCmdTrash(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "trash <command>",
		Short: "The FreeDesktop.org trash that mcode rm, trash-cli and file managers share",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(
		newCmdTrashList(f, runF),
		newCmdTrashRestore(f, runF),
		newCmdTrashEmpty(f, runF),
		newCmdTrashPut(f, runF),
	)
	return c
}

// trashCall is the RunE of the trash subcommands: flags and --args, then
// the positionals into field (a list), then the call.
func trashCall(f *Factory, runF func(*CallOptions) error, opts *CallOptions, field string, single bool) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := collectArgs(c, f.IO.In, opts, nil, nil); err != nil {
			return err
		}
		if len(args) > 0 {
			if single {
				opts.Args[field] = fsutil.DisplayPath(args[0])
			} else {
				opts.Args[field] = jsonSafe(args)
			}
		}
		return callTool(c, f, opts, runF)
	}
}

func newCmdTrashList(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.ListName}
	c := &cobra.Command{
		Use:   "list [PATH] [flags]",
		Short: "List trashed files, newest first, with the id that restores each",
		Example: `  mcode trash list
  mcode trash list --path src/ --since 2h`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{annotationTool: trash.ListName},
		RunE:        trashCall(f, runF, opts, "path", true),
	}
	c.Flags().String("path", "", "only entries trashed from this path or below it")
	c.Flags().String("since", "", "only entries trashed since a time (2026-01-31[T15:04:05]) or within an age (2h, 3d)")
	c.Flags().Int("limit", 0, "most entries to show (default 100)")
	addArgsFlag(c, opts)
	return c
}

func newCmdTrashRestore(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.RestoreName}
	c := &cobra.Command{
		Use:   "restore ID|PATH… [flags]",
		Short: "Put trashed files back where they were (or --to DIR), with their bytes, modes and times",
		Example: `  mcode trash restore main.go
  mcode trash restore /work/app/build --to /tmp/recovered`,
		Annotations: map[string]string{annotationTool: trash.RestoreName},
		RunE:        trashCall(f, runF, opts, "targets", false),
	}
	c.Flags().String("to", "", "folder to restore into instead of the original location")
	c.Flags().Bool("force", false, "move what is in the way to the trash and restore over it")
	addArgsFlag(c, opts)
	return c
}

func newCmdTrashEmpty(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.EmptyName}
	c := &cobra.Command{
		Use:   "empty [flags]",
		Short: "Erase trashed files for good",
		Example: `  mcode trash empty --older-than 30d
  mcode trash empty --all`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{annotationTool: trash.EmptyName},
		RunE:        trashCall(f, runF, opts, "", false),
	}
	c.Flags().String("older-than", "", "erase entries trashed longer ago than this: 30d, 12h, 1w")
	c.Flags().String("path", "", "erase entries trashed from this path or below it")
	c.Flags().Bool("all", false, "erase everything in the trash (what file managers trashed too)")
	addArgsFlag(c, opts)
	return c
}

func newCmdTrashPut(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.PutName}
	c := &cobra.Command{
		Use:         "put PATHS…",
		Short:       "Move files or directories to the trash (like trash-put: no -r needed)",
		Example:     "  mcode trash put old/ notes.txt",
		Annotations: map[string]string{annotationTool: trash.PutName},
		RunE:        trashCall(f, runF, opts, "paths", false),
	}
	addArgsFlag(c, opts)
	return c
}
