package cmd

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersionOf(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/mcode-dev/mcode", Version: "v1.4.0-rc.1.0.20261202101010-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "darwin"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-02T10:10:10Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name, version, commit string
		bi                    *debug.BuildInfo
		want                  VersionInfo
	}{
		{"a release build: the stamp wins, the build info is shown", "1.4.0", "fedcba", bi, VersionInfo{
			Version: "1.4.0", Commit: "fedcba", GoVersion: "go1.26.8",
			Module: "github.com/mcode-dev/mcode", ModuleVersion: bi.Main.Version,
			VCSRevision: "0123456789abcdef0123456789abcdef01234567", VCSTime: "2026-12-02T10:10:10Z", Dirty: true}},
		{"go build from a clone: the module's pseudo-version and revision", "dev", "", bi, VersionInfo{
			Version: "1.4.0-rc.1.0.20261202101010-0123456789ab+dirty", Commit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8",
			Module: "github.com/mcode-dev/mcode", ModuleVersion: bi.Main.Version,
			VCSRevision: "0123456789abcdef0123456789abcdef01234567", VCSTime: "2026-12-02T10:10:10Z", Dirty: true}},
		{"go install …@v1.4.0: a module version and no VCS", "dev", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "github.com/mcode-dev/mcode", Version: "v1.4.0"}}, VersionInfo{
			Version: "1.4.0", GoVersion: "go1.26.8", Module: "github.com/mcode-dev/mcode", ModuleVersion: "v1.4.0"}},
		{"no VCS and no version: dev", "dev", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "github.com/mcode-dev/mcode", Version: "(devel)"}}, VersionInfo{
			Version: "dev", GoVersion: "go1.26.8", Module: "github.com/mcode-dev/mcode", ModuleVersion: "(devel)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionOf(tt.version, tt.commit, tt.bi)
			got.Platform = ""
			if tt.want.GoVersion == "" {
				got.GoVersion = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("versionOf (-want +got):\n%s", diff)
			}
		})
	}
}
