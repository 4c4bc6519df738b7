package cmd

import (
	"github.com/spf13/cobra"

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

func newCmdTrashList(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.ListName}
	c := &cobra.Command{
		Use:   "list [PATH] [flags]",
		Short: "List trashed files, newest first, with the id that restores each",
		Example: `  mcode trash list
  mcode trash list --path src/ --since 2h`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}

func newCmdTrashRestore(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.RestoreName}
	c := &cobra.Command{
		Use:   "restore ID|PATH… [flags]",
		Short: "Put trashed files back where they were (or --to DIR), with their bytes, modes and times",
		Example: `  mcode trash restore main.go
  mcode trash restore /work/app/build --to /tmp/recovered`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}

func newCmdTrashEmpty(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.EmptyName}
	c := &cobra.Command{
		Use:   "empty [flags]",
		Short: "Erase trashed files for good",
		Example: `  mcode trash empty --older-than 30d
  mcode trash empty --all`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}

func newCmdTrashPut(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.PutName}
	c := &cobra.Command{
		Use:     "put PATHS…",
		Short:   "Move files or directories to the trash (like trash-put: no -r needed)",
		Example: "  mcode trash put old/ notes.txt",
		RunE:    f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
