package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// find is the artifact of os/arch.
func find(arts []Artifact, os, arch string) (Artifact, bool) {
	for _, a := range arts {
		if a.Target.OS == os && a.Target.Arch == arch {
			return a, true
		}
	}
	return Artifact{}, false
}

// Formula is the Homebrew formula: the macOS and Linux archives of both
// architectures, each with its SHA-256.
func (r Release) Formula(arts []Artifact) string {
	var b strings.Builder
	fmt.Fprintf(&b, "class Mcode < Formula\n")
	fmt.Fprintf(&b, "  desc %q\n", Description)
	fmt.Fprintf(&b, "  homepage %q\n", Homepage)
	fmt.Fprintf(&b, "  version %q\n", r.Version)
	for _, osName := range []string{"macos", "linux"} {
		goos := map[string]string{"macos": "darwin", "linux": "linux"}[osName]
		fmt.Fprintf(&b, "\n  on_%s do\n", osName)
		for _, arch := range []struct{ brew, goarch string }{{"arm", "arm64"}, {"intel", "amd64"}} {
			a, ok := find(arts, goos, arch.goarch)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "    on_%s do\n      url %q\n      sha256 %q\n    end\n", arch.brew, r.URL(a), a.SHA256)
		}
		fmt.Fprintf(&b, "  end\n")
	}
	fmt.Fprintf(&b, "\n  def install\n    bin.install %q\n  end\n", Name)
	fmt.Fprintf(&b, "\n  test do\n    assert_match version.to_s, shell_output(\"#{bin}/%s version\")\n  end\nend\n", Name)
	return b.String()
}

// scoopArch is one architecture of a Scoop manifest.
type scoopArch struct {
	URL  string `json:"url"`
	Hash string `json:"hash"`
}

type scoopManifest struct {
	Version      string               `json:"version"`
	Description  string               `json:"description"`
	Homepage     string               `json:"homepage"`
	License      string               `json:"license,omitempty"`
	Architecture map[string]scoopArch `json:"architecture"`
	Bin          string               `json:"bin"`
}

// Scoop is the Scoop manifest: the Windows archives, 64bit and arm64.
func (r Release) Scoop(arts []Artifact) ([]byte, error) {
	m := scoopManifest{Version: r.Version, Description: Description, Homepage: Homepage,
		Architecture: map[string]scoopArch{}, Bin: Name + ".exe"}
	for arch, goarch := range map[string]string{"64bit": "amd64", "arm64": "arm64"} {
		if a, ok := find(arts, "windows", goarch); ok {
			m.Architecture[arch] = scoopArch{URL: r.URL(a), Hash: a.SHA256}
		}
	}
	data, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
