// Command floor is the peer of P1 (docs/performance.md): the least a Go
// program that links cobra and viper does to answer `read FILE` — read
// its config, read the file, print numbered lines in a JSON object.
// scripts/bench.sh builds it as scripts/build.sh builds mcode.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func main() {
	v := viper.New()
	v.SetConfigFile(".floor.yaml")
	_ = v.ReadInConfig() // absent, as mcode's usually is
	read := &cobra.Command{Use: "read FILE", Args: cobra.ExactArgs(1), RunE: func(c *cobra.Command, args []string) error {
		data, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		var out strings.Builder
		for i, line := range strings.SplitAfter(string(data), "\n") {
			if line != "" {
				fmt.Fprintf(&out, "%6d→%s", i+1, line)
			}
		}
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"ok": true, "tool": "read", "output": out.String()})
	}}
	root := &cobra.Command{Use: "floor", SilenceUsage: true}
	root.AddCommand(read)
	if root.Execute() != nil {
		os.Exit(1)
	}
}
