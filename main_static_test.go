package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStaticBinary builds mcode with scripts/build.sh and checks it is a
// static binary (no interpreter, no shared libraries) that knows its version.
func TestStaticBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("static linking is checked on linux")
	}
	bin := filepath.Join(t.TempDir(), "mcode")
	build := exec.Command("scripts/build.sh", bin)
	build.Env = append(build.Environ(), "MCODE_VERSION=v9.9.9-test")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("binary has an ELF interpreter: it is dynamically linked")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("binary needs shared libraries %v", libs)
	}
	// Function names stay in a stripped binary (tracebacks need them).
	image, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for fn, why := range linkedNever {
		if bytes.Contains(image, []byte(fn)) {
			t.Errorf("the binary links %s: %s", fn, why)
		}
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Result struct {
			Version   string `json:"version"`
			GoVersion string `json:"go_version"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if env.Result.Version != "v9.9.9-test" || env.Result.GoVersion != runtime.Version() {
		t.Errorf("version = %+v", env.Result)
	}
}

// linkedNever are functions whose presence in the binary costs every
// start (P1 and P18 of the performance targets), and why.
var linkedNever = map[string]string{
	"text/template.(*state).evalField": "text/template runs a template (it calls reflect.Value.MethodByName, " +
		"so the linker keeps every exported method of every type in an interface: 3 MB and the package inits they pull in); " +
		"fill templates with pkg/tmpl",
}
