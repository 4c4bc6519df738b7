package artifact

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// seedLock is the seed's flow: a pinned package, its archive's SHA-512,
// three entries (one with its SHA-256), a manifest check, one rename.
func seedLock(t *testing.T, dir string) (lock string, archive []byte) {
	manifest := `{"name":"@minimax/mcode-tools","version":"0.0.4","build":"prod"}`
	archive = gz(t, tarBytes(t,
		member{name: "package/package.json", body: `{"name":"@minimax-ai/code","version":"0.3.11"}`},
		member{name: "package/embedded/mcode-tools/cli.mjs", body: "console.log('tools')\n", mode: 0o755},
		member{name: "package/embedded/mcode-tools/manifest.json", body: manifest},
		member{name: "package/embedded/mcode-tools/THIRD_PARTY_NOTICES.md", body: "notices\n"},
		member{name: "package/other.js", body: "not wanted"}))
	writeFile(t, dir, "vendor/code-0.3.11.tgz", archive)
	lock = writeFile(t, dir, "artifacts.yaml", []byte(`
artifacts:
  - name: mcode-tools
    source: vendor/code-0.3.11.tgz
    integrity: `+sri512(archive)+`
    strip: 3
    entries:
      - path: cli.mjs
        sha256: `+hex256([]byte("console.log('tools')\n"))+`
      - path: manifest.json
      - {path: THIRD_PARTY_NOTICES.md, rename: MCODE_TOOLS_NOTICES.md}
    expect_json:
      manifest.json: {name: "@minimax/mcode-tools", version: "0.0.4", build: prod}
    dest: embedded/mcode-tools
`))
	return lock, archive
}

func TestSyncTwiceChangesNothingTheSecondTime(t *testing.T) {
	dir := t.TempDir()
	lock, _ := seedLock(t, dir)
	f := testFetcher(t)
	res, err := Sync(context.Background(), lock, f, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != "synced" || len(res[0].Extract.Entries) != 3 {
		t.Fatalf("result %+v", res[0])
	}
	dest := filepath.Join(dir, "embedded/mcode-tools")
	want := []string{StampName, "MCODE_TOOLS_NOTICES.md = notices\n", "cli.mjs = console.log('tools')\n", "manifest.json = "}
	got := tree(t, dest)
	if len(got) != 4 || got[1] != want[1] || got[2] != want[2] || !strings.HasPrefix(got[0], StampName) {
		t.Fatalf("tree %q", got)
	}
	var stamp Stamp
	data, _ := os.ReadFile(filepath.Join(dest, StampName))
	if err := json.Unmarshal(data, &stamp); err != nil || stamp.Name != "mcode-tools" || len(stamp.Entries) != 3 {
		t.Fatalf("stamp %s: %v", data, err)
	}
	st1, _ := os.Stat(filepath.Join(dest, StampName))
	time.Sleep(10 * time.Millisecond)

	res, err = Sync(context.Background(), lock, f, nil, nil, nil)
	if err != nil || res[0].Status != "up_to_date" || res[0].Fetch != nil {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	st2, _ := os.Stat(filepath.Join(dest, StampName))
	if !st1.ModTime().Equal(st2.ModTime()) || !os.SameFile(st1, st2) {
		t.Fatal("the second run rewrote the destination")
	}

	// A changed file, or a file that does not belong, brings a re-sync.
	os.WriteFile(filepath.Join(dest, "cli.mjs"), []byte("edited"), 0o755)
	if res, err = Sync(context.Background(), lock, f, nil, nil, nil); err != nil || res[0].Status != "synced" || res[0].Reason != "cli.mjs changed" {
		t.Fatalf("after an edit: %+v, %v", res, err)
	}
	if !res[0].Fetch.Cached {
		t.Error("the re-sync did not come from the cache")
	}
	os.WriteFile(filepath.Join(dest, "extra.txt"), nil, 0o644)
	if res, err = Sync(context.Background(), lock, f, nil, nil, nil); err != nil || res[0].Status != "synced" {
		t.Fatalf("after an extra file: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "extra.txt")); !os.IsNotExist(err) {
		t.Error("the extra file stayed")
	}
}

func TestSyncFailsAsAWhole(t *testing.T) {
	dir := t.TempDir()
	lock, archive := seedLock(t, dir)
	f := testFetcher(t)
	if _, err := Sync(context.Background(), lock, f, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	// A second artifact whose manifest check fails: the first, whose pin
	// changed too, must not be replaced either.
	data, _ := os.ReadFile(lock)
	changed := strings.Replace(string(data), "strip: 3", "strip: 3\n    max_size: 10MiB", 1) + `
  - name: second
    source: vendor/code-0.3.11.tgz
    integrity: ` + sri512(archive) + `
    strip: 1
    expect_json:
      package.json: {version: "9.9.9"}
    dest: second
`
	os.WriteFile(lock, []byte(changed), 0o644)
	before := tree(t, dir)
	_, err := Sync(context.Background(), lock, f, nil, nil, nil)
	te := wantCode(t, err, tool.CodeManifestMismatch)
	if !strings.Contains(te.Message, "artifact second") && !strings.Contains(err.Error(), "artifact second") {
		t.Errorf("error %v does not name the artifact", err)
	}
	if after := tree(t, dir); !slices.Equal(before, after) {
		t.Fatalf("the tree changed:\n%q\n%q", before, after)
	}
}

func TestReadLockRefusesUnknownKeysAndGaps(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"artifacts:\n  - {name: a, source: x, integrity: 'sha256:00', dest: d, sha: 1}\n": "field sha not found",
		"artifacts:\n  - {name: a, source: x, dest: d}\n":                                 "has no integrity",
		"artifacts: []\n": "lists no artifacts",
		"artifacts:\n  - {name: a, source: x, integrity: i, dest: d}\n  - {name: a, source: y, integrity: i, dest: e}\n": "two artifacts are named",
	} {
		_, err := ReadLock(writeFile(t, dir, "lock.yaml", []byte(text)))
		te := wantCode(t, err, tool.CodeUsage)
		if !strings.Contains(te.Message, want) {
			t.Errorf("%q: message %q lacks %q", text, te.Message, want)
		}
	}
}

// The real npm flow: npm pack of a small real package, its integrity
// from npm view, and its package.json checked.
const npmPackage, npmVersion = "left-pad", "1.3.0"

func npmIntegrity(t *testing.T) string {
	npm := peer.Require(t, "npm", "npm")
	out, err := exec.Command(npm, "view", npmPackage+"@"+npmVersion, "dist.integrity").Output()
	if err != nil {
		t.Fatalf("npm view: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestRealNpmPackage(t *testing.T) {
	integrity := npmIntegrity(t)
	dir := t.TempDir()
	cmd := exec.Command("npm", "pack", npmPackage+"@"+npmVersion, "--silent")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pack: %v", err)
	}
	tgz := filepath.Join(dir, strings.TrimSpace(string(out)))
	dest := filepath.Join(dir, "out")
	r, err := extract(t, ExtractOptions{Archive: tgz, Dest: dest, Integrity: mustIntegrity(t, integrity), Strip: 1,
		Entries: []EntrySpec{{Path: "package.json"}},
		Expect:  []Expectation{{File: "package.json", Key: "name", Value: npmPackage}, {File: "package.json", Key: "version", Value: npmVersion}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dest); len(got) != 1 || !strings.HasPrefix(got[0], "package.json = {") || len(r.Checks) != 3 {
		t.Fatalf("tree %q, checks %+v", got, r.Checks)
	}
	_, err = extract(t, ExtractOptions{Archive: tgz, Dest: dest, Strip: 1, Expect: []Expectation{{File: "package.json", Key: "version", Value: "1.2.0"}}})
	wantCode(t, err, tool.CodeManifestMismatch)

	// The same through a lock with an npm: source, fetched by npm pack.
	lock := writeFile(t, dir, "artifacts.yaml", []byte(`artifacts:
  - name: left-pad
    source: npm:`+npmPackage+`@`+npmVersion+`
    integrity: `+integrity+`
    strip: 1
    entries: [{path: index.js}, {path: package.json}]
    expect_json: {package.json: {version: "`+npmVersion+`"}}
    dest: vendor/left-pad
`))
	f := testFetcher(t)
	res, err := Sync(context.Background(), lock, f, nil, nil, nil)
	if err != nil || res[0].Status != "synced" {
		t.Fatalf("sync: %+v, %v", res, err)
	}
	res, err = Sync(context.Background(), lock, f, nil, nil, nil)
	if err != nil || res[0].Status != "up_to_date" {
		t.Fatalf("second sync: %+v, %v", res, err)
	}
}
