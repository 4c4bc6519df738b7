package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// enumValue is a string flag that accepts only the listed values, so a bad
// value is a usage error when the flag is parsed.
type enumValue struct {
	target  *string
	allowed []string
}

func (e *enumValue) String() string { return *e.target }
func (e *enumValue) Type() string   { return "string" }
func (e *enumValue) Set(v string) error {
	if !slices.Contains(e.allowed, v) {
		return fmt.Errorf("valid values are %s", strings.Join(e.allowed, ", "))
	}
	*e.target = v
	return nil
}

// enumFlag adds a flag limited to allowed values, defaulting to def.
func enumFlag(c *cobra.Command, target *string, name, short, def string, allowed []string, usage string) {
	*target = def
	c.Flags().VarP(&enumValue{target: target, allowed: allowed}, name, short,
		fmt.Sprintf("%s: %s", usage, strings.Join(allowed, "|")))
}
