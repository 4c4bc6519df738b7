package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func envFunc(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func envNames(m map[string]string) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	return names
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadOne loads the configuration of one file, a person's own (trusted),
// or none ("").
func loadOne(path string, explicit bool, getenv func(string) string, names []string) (*config.Config, error) {
	var files []configFile
	if path != "" {
		files = []configFile{{layer: "user file", path: path, trusted: true, explicit: explicit}}
	}
	cfg, _, err := loadConfig(files, getenv, names)
	return cfg, err
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := loadOne("", false, envFunc(nil), envNames(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ToolResultCompaction.MaxInlineKiB != 64 {
		t.Errorf("maxInlineKiB = %d", cfg.ToolResultCompaction.MaxInlineKiB)
	}
	if cfg.Bash.DefaultTimeout != 120*time.Second || !cfg.Bash.TrashShim {
		t.Errorf("bash defaults = %+v", cfg.Bash)
	}
}

func TestConfigPrecedence(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), `
toolResultCompaction: {maxInlineKiB: 8}
bash: {defaultTimeout: 90, maxTimeout: 2m, envSanitize: scrub}
agents:
  reviewer: {role: verifier, tools: [read, grep], disallowedTools: [bash]}
`)
	cfg, err := loadOne(path, true, envFunc(nil), envNames(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ToolResultCompaction.MaxInlineKiB != 8 || cfg.Bash.DefaultTimeout != 90*time.Second || cfg.Bash.MaxTimeout != 2*time.Minute {
		t.Errorf("file values not read: %+v %+v", cfg.ToolResultCompaction, cfg.Bash)
	}
	if a := cfg.Agents["reviewer"]; a.Role != "verifier" || len(a.Tools) != 2 {
		t.Errorf("agent = %+v", a)
	}
	// Env beats the file; the seed's alias spelling works too.
	env := map[string]string{
		"MCODE_TOOLRESULTCOMPACTION_MAXINLINEKIB": "16",
		"MCODE_BASH_ENV_SANITIZE":                 "strict",
	}
	cfg, err = loadOne(path, true, envFunc(env), envNames(env))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ToolResultCompaction.MaxInlineKiB != 16 || cfg.Bash.EnvSanitize != "strict" {
		t.Errorf("env did not win: %d %q", cfg.ToolResultCompaction.MaxInlineKiB, cfg.Bash.EnvSanitize)
	}
}

func TestConfigErrorsNameFileKeyAndExpectation(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, yaml string
		env        map[string]string
		want       []string
	}{
		{"type", "toolResultCompaction: {maxInlineKiB: lots}\n", nil,
			[]string{"c.yaml", "toolResultCompaction.maxInlineKiB", "expected an integer"}},
		{"unknown key", "bahs: {envSanitize: off}\n", nil,
			[]string{"c.yaml", "bahs", "unknown key", "bash"}},
		{"nested unknown", "bash: {defaultTimer: 5}\n", nil,
			[]string{"bash.defaulttimer", "defaultTimeout"}},
		{"duration", "bash: {defaultTimeout: soon}\n", nil,
			[]string{"bash.defaultTimeout", "duration"}},
		{"enum", "bash: {envSanitize: maybe}\n", nil,
			[]string{"bash.envSanitize", "one of off, scrub, strict", `"maybe"`}},
		{"fraction", "read: {maxImageWidth: 1.5}\n", nil,
			[]string{"read.maxImageWidth", "expected an integer"}},
		{"overflow", "toolResultCompaction: {maxInlineKiB: 99999999999999999999}\n", nil,
			[]string{"toolResultCompaction.maxInlineKiB", "expected an integer"}},
		{"negative duration", "bash: {defaultTimeout: -5}\n", nil,
			[]string{"bash.defaultTimeout", "duration", "-5"}},
		{"zero duration", "bash: {maxTimeout: 0}\n", nil,
			[]string{"bash.maxTimeout", "a duration above 0", "got 0s"}},
		{"yaml", "bash: [unclosed\n", nil,
			[]string{"c.yaml", "not valid YAML"}},
		{"env", "", map[string]string{"MCODE_BASH_MAXSPOOLMIB": "big"},
			[]string{"MCODE_BASH_MAXSPOOLMIB", "bash.maxSpoolMiB", "expected an integer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, c.name, "c.yaml"), c.yaml)
			_, err := loadOne(path, true, envFunc(c.env), envNames(c.env))
			if err == nil {
				t.Fatal("want an error")
			}
			te := tool.AsError(err)
			if te.Code != tool.CodeUsage {
				t.Errorf("code = %s", te.Code)
			}
			for _, w := range c.want {
				if !strings.Contains(te.Message, w) {
					t.Errorf("message %q lacks %q", te.Message, w)
				}
			}
		})
	}
}

func TestConfigFilesAreLayered(t *testing.T) {
	dir := t.TempDir()
	f, _ := factoryIn(dir, nil)
	f.Trusted = TrustedFiles{System: "/etc/x/config.yaml", UserDir: filepath.Join(dir, "person")}
	layers := func() (out []string) {
		for _, c := range f.configFiles() {
			out = append(out, fmt.Sprintf("%s %s trusted=%v explicit=%v", c.layer, c.path, c.trusted, c.explicit))
		}
		return out
	}
	want := []string{
		"system file /etc/x/config.yaml trusted=true explicit=false",
		"user file " + dir + "/person/config.yaml trusted=true explicit=false",
		"workspace file " + dir + "/.mcode.yaml trusted=false explicit=false",
	}
	if got := layers(); !slices.Equal(got, want) {
		t.Errorf("layers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f.Getenv = envFunc(map[string]string{"MCODE_CONFIG": "e.yaml"})
	want[2] = "MCODE_CONFIG file " + dir + "/e.yaml trusted=false explicit=true"
	if got := layers(); !slices.Equal(got, want) {
		t.Errorf("MCODE_CONFIG replaces the workspace file: %q", got)
	}
	f.Global.Config = "/f.yaml"
	want[2] = "--config file /f.yaml trusted=false explicit=true"
	if got := layers(); !slices.Equal(got, want) {
		t.Errorf("--config beats MCODE_CONFIG: %q", got)
	}
	dir = t.TempDir()
	if _, err := loadOne(filepath.Join(dir, "missing.yaml"), true, envFunc(nil), nil); err == nil {
		t.Error("a missing explicit config must be an error")
	}
}

// Each layer keeps its own settings: merging the workspace file over the
// user's must not change what the user's alone says (viper merges nested
// maps by reference).
func TestLayersDoNotLeakIntoEachOther(t *testing.T) {
	d := t.TempDir()
	u := writeFile(t, d+"/u.yaml", "tools:\n  custom:\n    - name: greet\n      description: hi\n      command: [echo, \"{}\"]\n")
	w := writeFile(t, d+"/w.yaml", "tools:\n  custom:\n    - name: ws_tool\n      description: hi\n      command: [echo, \"{}\"]\n")
	cfg, _, err := loadConfig([]configFile{{layer: "user file", path: u, trusted: true}, {layer: "--config file", path: w, explicit: true}}, envFunc(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfg.Tools.Custom {
		got = append(got, c.Name+":"+c.Trust)
	}
	if want := []string{"greet:trusted", "ws_tool:untrusted"}; !slices.Equal(got, want) {
		t.Errorf("custom tools %q, want %q", got, want)
	}
}
