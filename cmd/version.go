package cmd

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Set at build time by scripts/build.sh and scripts/release.sh with
// -ldflags -X; a plain go build or go install leaves them, and the build
// information the Go toolchain records (go version -m) speaks instead.
var (
	version = "dev"
	commit  = ""
)

// VersionInfo is the result of mcode version: the stamped version and
// commit, and what `go version -m` shows of the binary.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
	// Module and ModuleVersion are the main module and its version as the
	// toolchain saw it: a tag, a pseudo-version, or (devel).
	Module        string `json:"module"`
	ModuleVersion string `json:"module_version"`
	// VCSRevision, VCSTime and Dirty are the vcs.* build settings: the
	// commit built, its time, and whether the tree had changes.
	VCSRevision string `json:"vcs_revision"`
	VCSTime     string `json:"vcs_time"`
	Dirty       bool   `json:"dirty"`
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

// versionOf fills a VersionInfo from the stamped values and the build
// information (nil when the binary has none).
func versionOf(stamped, stampedCommit string, bi *debug.BuildInfo) VersionInfo {
	info := VersionInfo{Version: stamped, Commit: stampedCommit, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return info
	}
	info.Module, info.ModuleVersion = bi.Main.Path, bi.Main.Version
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.VCSRevision = s.Value
		case "vcs.time":
			info.VCSTime = s.Value
		case "vcs.modified":
			info.Dirty = s.Value == "true"
		}
	}
	info.Commit = cmp.Or(info.Commit, info.VCSRevision)
	if info.Version == "dev" && info.ModuleVersion != "" && info.ModuleVersion != "(devel)" {
		// go install …@v1.2.3 stamps nothing but the module's version.
		info.Version = strings.TrimPrefix(info.ModuleVersion, "v")
	}
	return info
}

// versionEnvelope is the answer of mcode version and mcode --version.
func versionEnvelope() *tool.Envelope {
	bi, _ := debug.ReadBuildInfo()
	info := versionOf(version, commit, bi)
	dirty := ""
	if info.Dirty {
		dirty = ", dirty"
	}
	out := fmt.Sprintf("mcode %s (commit %s%s, %s, %s)", info.Version, cmp.Or(info.Commit, "unknown"), dirty, info.GoVersion, info.Platform)
	return tool.NewEnvelope("version", &tool.Response{Output: out, Result: info}, nil)
}
