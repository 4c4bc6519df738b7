package main

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// The software bill of materials is CycloneDX 1.5 JSON made from the
// build information the Go toolchain writes into each binary (what `go
// version -m` prints): the main module, every module linked in with its
// go.sum hash, the Go version and the build settings.

// cdx is the part of a CycloneDX document written here.
type cdx struct {
	BOMFormat   string         `json:"bomFormat"`
	SpecVersion string         `json:"specVersion"`
	Version     int            `json:"version"`
	Metadata    cdxMetadata    `json:"metadata"`
	Components  []cdxComponent `json:"components"`
}

type cdxMetadata struct {
	Component  cdxComponent  `json:"component"`
	Properties []cdxProperty `json:"properties"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	Name       string        `json:"name"`
	Version    string        `json:"version"`
	PURL       string        `json:"purl"`
	BOMRef     string        `json:"bom-ref"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// purl is a Go module's package URL.
func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + version
}

// SBOM renders the bill of materials of a binary's build information;
// version is the release's (the main module's own is (devel) or a
// pseudo-version in a local build).
func SBOM(bi *debug.BuildInfo, version string, t Target) ([]byte, error) {
	doc := cdx{BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1}
	main := cdxComponent{Type: "application", Name: bi.Main.Path, Version: version,
		PURL: purl(bi.Main.Path, "v"+version) + "?goos=" + t.OS + "&goarch=" + t.Arch}
	main.BOMRef = main.PURL
	doc.Metadata.Component = main
	doc.Metadata.Properties = append(doc.Metadata.Properties, cdxProperty{"go:version", bi.GoVersion},
		cdxProperty{"go:module_version", bi.Main.Version})
	for _, s := range bi.Settings {
		doc.Metadata.Properties = append(doc.Metadata.Properties, cdxProperty{"go:build:" + s.Key, s.Value})
	}
	doc.Components = []cdxComponent{}
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		c := cdxComponent{Type: "library", Name: m.Path, Version: m.Version, PURL: purl(m.Path, m.Version)}
		c.BOMRef = c.PURL
		if m.Sum != "" {
			c.Properties = append(c.Properties, cdxProperty{"go:sum", m.Sum})
		}
		if d.Replace != nil {
			c.Properties = append(c.Properties, cdxProperty{"go:replaces", d.Path + "@" + d.Version})
		}
		doc.Components = append(doc.Components, c)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// SBOMName is the bill of materials beside an archive.
func SBOMName(archive string) string {
	return strings.TrimSuffix(strings.TrimSuffix(archive, ".zip"), ".tar.gz") + ".sbom.cdx.json"
}

func (r Release) writeSBOM(t Target) error {
	bi, err := buildinfo.ReadFile(r.binary(t))
	if err != nil {
		return fmt.Errorf("reading the build information of the %s binary: %w", t, err)
	}
	data, err := SBOM(bi, r.Version, t)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(r.Dist, SBOMName(t.Archive(r.Version))), data, 0o644)
}
