package main

import (
	"debug/elf"
	"encoding/json"
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
