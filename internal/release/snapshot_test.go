package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
)

// TestSnapshotRelease runs scripts/release.sh --snapshot as a fresh clone
// would, then checks what it made: every archive and bill of materials,
// SHA256SUMS against the archives, the manifests, and the npm packages
// installed offline into a temporary prefix, whose mcode answers with the
// version stamped.
func TestSnapshotRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binaries of every target (minutes)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("the release is made and tried on Linux")
	}
	peer.Require(t, "git", "git")
	npm := peer.Require(t, "npm", "npm")
	peer.Require(t, "sha256sum", "coreutils")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	start := time.Now()
	cmd := exec.Command("bash", "scripts/release.sh", "--snapshot")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCODE_DIST="+dist, "MCODE_RELEASE_URL=https://downloads.invalid/mcode", "MCODE_RELEASE_TARGETS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh --snapshot: %v\n%s", err, out)
	}
	t.Logf("release.sh --snapshot took %s", time.Since(start).Round(time.Second))

	var main packageJSON
	readJSON(t, filepath.Join(dist, "npm", "src", "mcode", "package.json"), &main)
	version := main.Version
	if err := ValidVersion(version); err != nil || !strings.Contains(version, "-snapshot.g") {
		t.Fatalf("snapshot version %q: %v", version, err)
	}
	sums, err := os.ReadFile(filepath.Join(dist, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range Targets {
		name := tg.Archive(version)
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("no archive for %s: %v", tg, err)
			continue
		}
		sum := sha256.Sum256(data)
		if line := hex.EncodeToString(sum[:]) + "  " + name + "\n"; !bytes.Contains(sums, []byte(line)) {
			t.Errorf("SHA256SUMS has no line %q", line)
		}
		var sbom cdx
		readJSON(t, filepath.Join(dist, SBOMName(name)), &sbom)
		if sbom.Metadata.Component.Version != version || len(sbom.Components) == 0 {
			t.Errorf("%s: bill of materials %+v", tg, sbom.Metadata.Component)
		}
	}
	if n := bytes.Count(sums, []byte("\n")); n != len(Targets) {
		t.Errorf("SHA256SUMS has %d lines, want %d", n, len(Targets))
	}
	check := exec.Command("sha256sum", "-c", SumsFile)
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
	formula, _ := os.ReadFile(filepath.Join(dist, "homebrew", "mcode.rb"))
	darwin, windows := Target{"darwin", "arm64"}, Target{"windows", "amd64"}
	if !bytes.Contains(formula, []byte(`url "https://downloads.invalid/mcode/`+darwin.Archive(version)+`"`)) {
		t.Errorf("the formula does not point at the darwin/arm64 archive:\n%s", formula)
	}
	var scoop scoopManifest
	readJSON(t, filepath.Join(dist, "scoop", "mcode.json"), &scoop)
	if scoop.Version != version || scoop.Architecture["64bit"].URL != "https://downloads.invalid/mcode/"+windows.Archive(version) {
		t.Errorf("scoop manifest: %+v", scoop)
	}

	tarballs, _ := filepath.Glob(filepath.Join(dist, "npm", "*.tgz"))
	if len(tarballs) != 1+len(Targets) {
		t.Fatalf("%d npm tarballs, want %d: %v", len(tarballs), 1+len(Targets), tarballs)
	}
	host := Target{runtime.GOOS, runtime.GOARCH}
	prefix := t.TempDir()
	install := exec.Command(npm, "install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix,
		filepath.Join(dist, "npm", "mcode-"+version+".tgz"),
		filepath.Join(dist, "npm", strings.NewReplacer("@", "", "/", "-").Replace(host.NpmPackage())+"-"+version+".tgz"))
	install.Env = append(os.Environ(), "npm_config_cache="+t.TempDir(), "npm_config_update_notifier=false")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(prefix, "bin", "mcode"), "version").Output()
	if err != nil {
		t.Fatalf("the installed mcode version: %v\n%s", err, out)
	}
	var env struct {
		OK     bool        `json:"ok"`
		Result VersionInfo `json:"result"`
	}
	if err := json.Unmarshal(out, &env); err != nil || !env.OK || env.Result.Version != version || env.Result.Commit == "" {
		t.Fatalf("the installed mcode says %s (%v)", out, err)
	}
	// The launcher passes on the command's exit status.
	code := exec.Command(filepath.Join(prefix, "bin", "mcode"), "bash", "exit 3")
	code.Env = append(os.Environ(), "MCODE_HOME="+t.TempDir())
	if err := code.Run(); code.ProcessState == nil || code.ProcessState.ExitCode() != 3 {
		t.Errorf("mcode bash 'exit 3' through npm's launcher: %v", err)
	}
}

// VersionInfo is the part of mcode version's result checked here.
type VersionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
