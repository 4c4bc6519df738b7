package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The npm package set: mcode itself holds a small Node launcher and lists
// one package per platform as an optional dependency; each of those holds
// that platform's binary and declares its os and cpu, so npm installs only
// the one that fits (esbuild and biome ship theirs the same way). The
// folders are written under dist/npm/src; scripts/release.sh packs them
// with npm pack into dist/npm/*.tgz.

// packageJSON is the part of package.json written here.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Homepage             string            `json:"homepage"`
	Repository           map[string]string `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	Files                []string          `json:"files"`
	// PreferUnplugged keeps Yarn from zipping the binary away.
	PreferUnplugged bool `json:"preferUnplugged,omitempty"`
}

func (r Release) npmBase(name, description string) packageJSON {
	return packageJSON{Name: name, Version: r.Version, Description: description, Homepage: Homepage,
		Repository: map[string]string{"type": "git", "url": "git+" + Homepage + ".git"}}
}

// MainPackage is package.json of mcode.
func (r Release) MainPackage() packageJSON {
	p := r.npmBase(Name, Description)
	p.Bin = map[string]string{Name: "bin/" + Name + ".js"}
	p.OptionalDependencies = map[string]string{}
	for _, t := range r.targets() {
		p.OptionalDependencies[t.NpmPackage()] = r.Version
	}
	p.Engines = map[string]string{"node": ">=16"}
	p.Files = []string{"bin/" + Name + ".js", "README.md"}
	return p
}

// PlatformPackage is package.json of t's package.
func (r Release) PlatformPackage(t Target) packageJSON {
	p := r.npmBase(t.NpmPackage(), fmt.Sprintf("The %s binary of mcode for %s %s", Name, t.NpmOS(), t.NpmCPU()))
	p.OS, p.CPU = []string{t.NpmOS()}, []string{t.NpmCPU()}
	p.Files = []string{"bin/" + t.Exe()}
	p.PreferUnplugged = true
	return p
}

// Launcher is bin/mcode.js: it finds this platform's package (installed
// beside mcode, or inside it) and runs its binary with the same
// arguments, streams and exit status.
func Launcher() string {
	var table []string
	for _, t := range Targets {
		table = append(table, fmt.Sprintf("  %q: %q,", t.NpmOS()+" "+t.NpmCPU(), t.NpmPackage()))
	}
	sort.Strings(table)
	return `#!/usr/bin/env node
'use strict';
// Runs the mcode binary of this platform's package, an optional
// dependency of this one: npm installs only the package whose os and cpu
// fit the machine.
const { spawnSync } = require('child_process');

const packages = {
` + strings.Join(table, "\n") + `
};

const key = process.platform + ' ' + process.arch;
const pkg = packages[key];
if (!pkg) {
  console.error('mcode: no build for ' + key + '; build it from source: go install ` + Module + `@latest');
  process.exit(1);
}
const exe = process.platform === 'win32' ? 'mcode.exe' : 'mcode';
let bin;
try {
  bin = require.resolve(pkg + '/bin/' + exe);
} catch (e) {
  console.error('mcode: the package ' + pkg + ' is not installed beside mcode (were optional dependencies left out?): reinstall with npm install -g mcode');
  process.exit(1);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
if (r.error) {
  console.error('mcode: running ' + bin + ': ' + r.error.message);
  process.exit(1);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status === null ? 1 : r.status);
`
}

// NpmDir is the folder of one package's sources.
func (r Release) NpmDir(name string) string {
	return filepath.Join(r.Dist, "npm", "src", strings.NewReplacer("@", "", "/", "-").Replace(name))
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'), 0o644)
}

func (r Release) writeNpm() error {
	main := r.MainPackage()
	dir := r.NpmDir(main.Name)
	if err := writeJSON(filepath.Join(dir, "package.json"), main); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "bin", Name+".js"), []byte(Launcher()), 0o755); err != nil {
		return err
	}
	if readme, err := os.ReadFile("README.md"); err == nil {
		if err := writeFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
			return err
		}
	}
	for _, t := range r.targets() {
		p := r.PlatformPackage(t)
		dir := r.NpmDir(p.Name)
		if err := writeJSON(filepath.Join(dir, "package.json"), p); err != nil {
			return err
		}
		bin, err := os.ReadFile(r.binary(t))
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "bin", t.Exe()), bin, 0o755); err != nil {
			return err
		}
	}
	return nil
}
