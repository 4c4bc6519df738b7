package cmd

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Set at build time by scripts/build.sh with -ldflags -X.
var (
	version = "dev"
	commit  = ""
)

// VersionInfo is the result of mcode version.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// NewCmdVersion builds `mcode version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print mcode's version, commit and Go version",
		Example: "  mcode version\n  mcode --version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, versionEnvelope())
		},
	}
}

// versionEnvelope is the answer of mcode version and mcode --version.
func versionEnvelope() *tool.Envelope {
	info := VersionInfo{Version: version, Commit: commit, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info.Commit == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					info.Commit = s.Value
				}
			}
		}
	}
	out := fmt.Sprintf("mcode %s (commit %s, %s, %s)", info.Version, cmp.Or(info.Commit, "unknown"), info.GoVersion, info.Platform)
	return tool.NewEnvelope("version", &tool.Response{Output: out, Result: info}, nil)
}
