package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidVersion(t *testing.T) {
	for _, v := range []string{"1.2.3", "0.0.0-snapshot.g0a1b2c3", "1.0.0-rc.1", "1.0.0+build.5", "10.20.30-alpha-1.x"} {
		if err := ValidVersion(v); err != nil {
			t.Errorf("ValidVersion(%q) = %v", v, err)
		}
	}
	for v, want := range map[string]string{
		"": "no version", "v1.2.3": "without the leading v (1.2.3)", "1.2": "not semver",
		"1.2.3-01": "not semver", "1.2.3-snapshot.0123456": "not semver", "1.2.3 ": "not semver",
	} {
		if err := ValidVersion(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidVersion(%q) = %v, want it to say %q", v, err, want)
		}
	}
}

func TestTargetNames(t *testing.T) {
	got := map[string][3]string{}
	for _, tg := range Targets {
		got[tg.String()] = [3]string{tg.Archive("1.2.3"), tg.NpmPackage(), tg.Exe()}
	}
	want := map[string][3]string{
		"linux_amd64":   {"mcode_1.2.3_linux_amd64.tar.gz", "@mcode-dev/mcode-linux-x64", "mcode"},
		"linux_arm64":   {"mcode_1.2.3_linux_arm64.tar.gz", "@mcode-dev/mcode-linux-arm64", "mcode"},
		"darwin_amd64":  {"mcode_1.2.3_darwin_amd64.tar.gz", "@mcode-dev/mcode-darwin-x64", "mcode"},
		"darwin_arm64":  {"mcode_1.2.3_darwin_arm64.tar.gz", "@mcode-dev/mcode-darwin-arm64", "mcode"},
		"windows_amd64": {"mcode_1.2.3_windows_amd64.zip", "@mcode-dev/mcode-win32-x64", "mcode.exe"},
		"windows_arm64": {"mcode_1.2.3_windows_arm64.zip", "@mcode-dev/mcode-win32-arm64", "mcode.exe"},
		"freebsd_amd64": {"mcode_1.2.3_freebsd_amd64.tar.gz", "@mcode-dev/mcode-freebsd-x64", "mcode"},
		"freebsd_arm64": {"mcode_1.2.3_freebsd_arm64.tar.gz", "@mcode-dev/mcode-freebsd-arm64", "mcode"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestParseTargets(t *testing.T) {
	got, err := parseTargets(" windows/arm64  linux/amd64 ")
	if err != nil || len(got) != 2 || got[0] != (Target{"windows", "arm64"}) || got[1] != (Target{"linux", "amd64"}) {
		t.Fatalf("parseTargets = %v, %v", got, err)
	}
	if all, _ := parseTargets(""); len(all) != len(Targets) {
		t.Fatalf("parseTargets(\"\") = %d targets", len(all))
	}
	if _, err := parseTargets("plan9/amd64"); err == nil {
		t.Fatal("plan9/amd64 was taken")
	}
}

// arts are made-up artifacts of every target.
func arts(version string) []Artifact {
	var out []Artifact
	for i, tg := range Targets {
		out = append(out, Artifact{Target: tg, Name: tg.Archive(version), SHA256: strings.Repeat(string(rune('a'+i)), 64)})
	}
	return out
}

func TestFormula(t *testing.T) {
	r := Release{Version: "1.2.3", BaseURL: "https://dl.example/v1.2.3/"}
	got := r.Formula(arts("1.2.3"))
	want := `class Mcode < Formula
  desc "The tool layer for coding agents: each command prints one JSON result"
  homepage "https://github.com/mcode-dev/mcode"
  version "1.2.3"

  on_macos do
    on_arm do
      url "https://dl.example/v1.2.3/mcode_1.2.3_darwin_arm64.tar.gz"
      sha256 "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
    end
    on_intel do
      url "https://dl.example/v1.2.3/mcode_1.2.3_darwin_amd64.tar.gz"
      sha256 "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
    end
  end

  on_linux do
    on_arm do
      url "https://dl.example/v1.2.3/mcode_1.2.3_linux_arm64.tar.gz"
      sha256 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    end
    on_intel do
      url "https://dl.example/v1.2.3/mcode_1.2.3_linux_amd64.tar.gz"
      sha256 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    end
  end

  def install
    bin.install "mcode"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/mcode version")
  end
end
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("formula (-want +got):\n%s", diff)
	}
}

func TestScoop(t *testing.T) {
	r := Release{Version: "1.2.3", BaseURL: DefaultBaseURL("1.2.3")}
	data, err := r.Scoop(arts("1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version": "1.2.3", "description": Description, "homepage": Homepage, "bin": "mcode.exe",
		"architecture": map[string]any{
			"64bit": map[string]any{"url": "https://github.com/mcode-dev/mcode/releases/download/v1.2.3/mcode_1.2.3_windows_amd64.zip", "hash": strings.Repeat("e", 64)},
			"arm64": map[string]any{"url": "https://github.com/mcode-dev/mcode/releases/download/v1.2.3/mcode_1.2.3_windows_arm64.zip", "hash": strings.Repeat("f", 64)},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scoop manifest (-want +got):\n%s", diff)
	}
}

func TestNpmPackages(t *testing.T) {
	r := Release{Version: "1.2.3"}
	main := r.MainPackage()
	if main.Name != "mcode" || main.Bin["mcode"] != "bin/mcode.js" || len(main.OptionalDependencies) != len(Targets) {
		t.Fatalf("main package: %+v", main)
	}
	for _, tg := range Targets {
		if v := main.OptionalDependencies[tg.NpmPackage()]; v != "1.2.3" {
			t.Errorf("optional dependency %s = %q", tg.NpmPackage(), v)
		}
		p := r.PlatformPackage(tg)
		if p.Name != tg.NpmPackage() || p.OS[0] != tg.NpmOS() || p.CPU[0] != tg.NpmCPU() || p.Files[0] != "bin/"+tg.Exe() || p.Bin != nil {
			t.Errorf("%s: %+v", tg, p)
		}
		// The launcher knows every package by Node's own words.
		if !strings.Contains(Launcher(), `"`+tg.NpmOS()+" "+tg.NpmCPU()+`": "`+tg.NpmPackage()+`"`) {
			t.Errorf("the launcher has no entry for %s", tg)
		}
	}
	if r := (Release{Version: "1.2.3", Targets: []Target{{"linux", "arm64"}}}); len(r.MainPackage().OptionalDependencies) != 1 {
		t.Errorf("a partial release lists packages it did not build")
	}
}

func TestArchivesAreReproducibleAndHoldTheBinary(t *testing.T) {
	dist := t.TempDir()
	for _, tg := range Targets {
		if err := writeFile(filepath.Join(dist, "bin", tg.String(), tg.Exe()), []byte("binary of "+tg.String()), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := Release{Dist: dist, Version: "1.2.3", Epoch: 1_700_000_000}
	first := map[string]string{}
	for _, tg := range Targets {
		a, err := r.archive(tg)
		if err != nil {
			t.Fatal(err)
		}
		first[a.Name] = a.SHA256
		data, err := os.ReadFile(filepath.Join(dist, a.Name))
		if err != nil {
			t.Fatal(err)
		}
		name, mode, body := firstMember(t, a.Name, data)
		if name != tg.Exe() || mode&0o111 == 0 || body != "binary of "+tg.String() {
			t.Errorf("%s: first member %s (%o) %q", a.Name, name, mode, body)
		}
	}
	for _, tg := range Targets {
		if a, _ := r.archive(tg); a.SHA256 != first[a.Name] {
			t.Errorf("%s: a second run made other bytes", a.Name)
		}
	}
}

func firstMember(t *testing.T, name string, data []byte) (string, int64, string) {
	t.Helper()
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		f := zr.File[0]
		rc, _ := f.Open()
		body, _ := io.ReadAll(rc)
		return f.Name, int64(f.Mode().Perm()), string(body)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(tr)
	return hdr.Name, hdr.Mode, string(body)
}

func TestSBOM(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8",
		Main: debug.Module{Path: Module, Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "github.com/spf13/cobra", Version: "v1.10.2", Sum: "h1:abc="},
			{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/new", Version: "v1.1.0", Sum: "h1:def="}},
		},
		Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}, {Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}},
	}
	data, err := SBOM(bi, "1.2.3", Target{"darwin", "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	var doc cdx
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.BOMFormat != "CycloneDX" || doc.SpecVersion != "1.5" ||
		doc.Metadata.Component.PURL != "pkg:golang/github.com/mcode-dev/mcode@v1.2.3?goos=darwin&goarch=arm64" {
		t.Fatalf("metadata: %+v", doc.Metadata.Component)
	}
	props := map[string]string{}
	for _, p := range doc.Metadata.Properties {
		props[p.Name] = p.Value
	}
	if props["go:version"] != "go1.26.8" || props["go:build:vcs.revision"] != "0123abc" || props["go:build:vcs.modified"] != "true" {
		t.Errorf("properties: %v", props)
	}
	want := []cdxComponent{
		{Type: "library", Name: "github.com/spf13/cobra", Version: "v1.10.2", PURL: "pkg:golang/github.com/spf13/cobra@v1.10.2",
			BOMRef: "pkg:golang/github.com/spf13/cobra@v1.10.2", Properties: []cdxProperty{{"go:sum", "h1:abc="}}},
		{Type: "library", Name: "example.com/new", Version: "v1.1.0", PURL: "pkg:golang/example.com/new@v1.1.0",
			BOMRef: "pkg:golang/example.com/new@v1.1.0", Properties: []cdxProperty{{"go:sum", "h1:def="}, {"go:replaces", "example.com/old@v1.0.0"}}},
	}
	if diff := cmp.Diff(want, doc.Components); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if got := SBOMName("mcode_1.2.3_windows_amd64.zip"); got != "mcode_1.2.3_windows_amd64.sbom.cdx.json" {
		t.Errorf("SBOMName = %s", got)
	}
}
