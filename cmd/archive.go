package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdArchive builds `mcode archive list`.
func NewCmdArchive(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "archive <command>",
		Short: "Oversized results that the output budget moved to files",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List archived results in MCODE_HOME/" + budget.DirName + ", newest first",
		Example: "  mcode archive list",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			dir := filepath.Join(f.HomeDir(), budget.DirName)
			list, err := budget.ListArchives(dir)
			if err != nil {
				return finish(f, tool.NewEnvelope("archive list", nil, fmt.Errorf("listing %s: %w", dir, err)))
			}
			var b strings.Builder
			for _, a := range list {
				fmt.Fprintf(&b, "%s  %d bytes  %s\n", a.Modified.Format("2006-01-02 15:04:05Z"), a.Bytes, a.Path)
			}
			if len(list) == 0 {
				b.WriteString("no archived results in " + dir + "\n")
			}
			return finish(f, tool.NewEnvelope("archive list", &tool.Response{
				Output: b.String(),
				Result: map[string]any{"dir": dir, "count": len(list), "archives": list},
			}, nil))
		},
	})
	return c
}
