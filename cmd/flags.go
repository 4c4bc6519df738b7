package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/config"
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

// secondsValue is a duration flag that fills a schema field holding
// seconds: it takes bare seconds (90) or a Go duration (90s, 2m), as every
// duration in mcode does. Its type reads as float64 so that collectArgs
// passes the seconds as a JSON number.
type secondsValue struct{ secs float64 }

func (s *secondsValue) String() string { return strconv.FormatFloat(s.secs, 'f', -1, 64) }
func (s *secondsValue) Type() string   { return "float64" }
func (s *secondsValue) Set(v string) error {
	d, err := config.ParseDuration(v)
	if err != nil {
		return err
	}
	s.secs = d.Seconds()
	return nil
}

// secondsFlag adds a duration flag whose value is passed in seconds. The
// word in backquotes in usage names its value in the help.
func secondsFlag(c *cobra.Command, name, usage string) {
	c.Flags().Var(&secondsValue{}, name, usage)
	fieldFlag(c, name, strings.ReplaceAll(name, "-", "_"))
}
