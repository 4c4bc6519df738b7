package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Project facts the manifests repeat.
const (
	Name        = "mcode"
	Module      = "github.com/mcode-dev/mcode"
	Homepage    = "https://github.com/mcode-dev/mcode"
	Description = "The tool layer for coding agents: each command prints one JSON result"
	// NpmScope names the per-platform npm packages: @mcode-dev/mcode-linux-x64.
	NpmScope = "@mcode-dev"
)

// Target is one platform a binary is built for.
type Target struct{ OS, Arch string }

// Targets are every platform released, in the order they are listed.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
	{"freebsd", "amd64"}, {"freebsd", "arm64"},
}

func (t Target) String() string { return t.OS + "_" + t.Arch }

// Exe is the binary's file name.
func (t Target) Exe() string {
	if t.OS == "windows" {
		return Name + ".exe"
	}
	return Name
}

// Archive is the archive's file name: zip for Windows, tar.gz elsewhere.
func (t Target) Archive(version string) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", Name, version, t.OS, t.Arch, ext)
}

// NpmOS and NpmCPU are the target in Node's process.platform and
// process.arch words.
func (t Target) NpmOS() string {
	if t.OS == "windows" {
		return "win32"
	}
	return t.OS
}

func (t Target) NpmCPU() string {
	if t.Arch == "amd64" {
		return "x64"
	}
	return t.Arch
}

// NpmPackage is the target's npm package: @mcode-dev/mcode-linux-x64.
func (t Target) NpmPackage() string {
	return NpmScope + "/" + Name + "-" + t.NpmOS() + "-" + t.NpmCPU()
}

// semver is a version npm, Homebrew and Scoop all take: MAJOR.MINOR.PATCH
// with an optional pre-release and build.
const semver = `^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`

// ValidVersion refuses what is not semver without a leading v.
func ValidVersion(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("no version: pass -version 1.2.3")
	case strings.HasPrefix(v, "v"):
		return fmt.Errorf("version %q: give it without the leading v (%s)", v, v[1:])
	case !regexp.MustCompile(semver).MatchString(v):
		return fmt.Errorf("version %q is not semver (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD])", v)
	}
	return nil
}

// DefaultBaseURL is the GitHub release download folder of version.
func DefaultBaseURL(version string) string {
	return Homepage + "/releases/download/v" + version
}

// Release is one packaging run.
type Release struct {
	Dist    string
	Version string
	BaseURL string
	// Epoch is the modification time of every archive member (0: the
	// Unix epoch), so the same binaries make the same archives.
	Epoch int64
	// Targets are the targets built (nil: all).
	Targets []Target
}

func (r Release) targets() []Target {
	if r.Targets == nil {
		return Targets
	}
	return r.Targets
}

// Artifact is one archive made.
type Artifact struct {
	Target Target
	Name   string
	SHA256 string
}

// URL is where the artifact is downloaded from.
func (r Release) URL(a Artifact) string { return strings.TrimSuffix(r.BaseURL, "/") + "/" + a.Name }

// binary is where the build put t's binary.
func (r Release) binary(t Target) string { return filepath.Join(r.Dist, "bin", t.String(), t.Exe()) }

// Package makes everything from the built binaries.
func (r Release) Package() error {
	var arts []Artifact
	for _, t := range r.targets() {
		a, err := r.archive(t)
		if err != nil {
			return err
		}
		if err := r.writeSBOM(t); err != nil {
			return err
		}
		arts = append(arts, a)
	}
	if err := r.writeSums(arts); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(r.Dist, "homebrew", Name+".rb"), []byte(r.Formula(arts)), 0o644); err != nil {
		return err
	}
	scoop, err := r.Scoop(arts)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(r.Dist, "scoop", Name+".json"), scoop, 0o644); err != nil {
		return err
	}
	return r.writeNpm()
}

func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}

// member is one file of an archive.
type member struct {
	name string
	mode int64
	data []byte
}

// members are what every archive holds: the binary and the README.
func (r Release) members(t Target) ([]member, error) {
	bin, err := os.ReadFile(r.binary(t))
	if err != nil {
		return nil, fmt.Errorf("the %s binary: %w (build it first: scripts/release.sh)", t, err)
	}
	out := []member{{t.Exe(), 0o755, bin}}
	if readme, err := os.ReadFile("README.md"); err == nil {
		out = append(out, member{"README.md", 0o644, readme})
	}
	return out, nil
}

func (r Release) archive(t Target) (Artifact, error) {
	ms, err := r.members(t)
	if err != nil {
		return Artifact{}, err
	}
	var buf bytes.Buffer
	mtime := time.Unix(r.Epoch, 0).UTC()
	if t.OS == "windows" {
		err = writeZip(&buf, ms, mtime)
	} else {
		err = writeTarGz(&buf, ms, mtime)
	}
	if err != nil {
		return Artifact{}, err
	}
	a := Artifact{Target: t, Name: t.Archive(r.Version)}
	sum := sha256.Sum256(buf.Bytes())
	a.SHA256 = hex.EncodeToString(sum[:])
	return a, writeFile(filepath.Join(r.Dist, a.Name), buf.Bytes(), 0o644)
}

// writeTarGz writes a tar.gz whose bytes depend only on its members.
func writeTarGz(w io.Writer, ms []member, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		hdr := &tar.Header{Name: m.name, Mode: m.mode, Size: int64(len(m.data)), ModTime: mtime,
			Typeflag: tar.TypeReg, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(m.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes a zip whose bytes depend only on its members.
func writeZip(w io.Writer, ms []member, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, m := range ms {
		hdr := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(m.mode))
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(m.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// SumsFile lists every archive's SHA-256, in sha256sum's format.
const SumsFile = "SHA256SUMS"

func (r Release) writeSums(arts []Artifact) error {
	lines := make([]string, 0, len(arts))
	for _, a := range arts {
		lines = append(lines, a.SHA256+"  "+a.Name)
	}
	sort.Strings(lines)
	return writeFile(filepath.Join(r.Dist, SumsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
