package patch

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// randomPatch builds a multi-file patch over before, with the tree it
// must leave. Every line of every file is unique, so each hunk has one
// place.
func randomPatch(r *rand.Rand, before tree) (string, tree) {
	after := tree{}
	for k, v := range before {
		after[k] = v
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	n := 0
	for name, data := range before {
		n++
		lines := strings.SplitAfter(data, "\n")
		lines = lines[:len(lines)-1]
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "*** Delete File: %s\n", name)
			delete(after, name)
			continue
		case 1:
			continue // untouched
		}
		fmt.Fprintf(&b, "*** Update File: %s\n", name)
		dest := name
		if r.IntN(4) == 0 {
			dest = fmt.Sprintf("moved%d/%s", n, name)
			fmt.Fprintf(&b, "*** Move to: %s\n", dest)
		}
		var out []string
		hunks := 0
		for i := 0; i < len(lines); {
			last := i+3 > len(lines)
			if last || (r.IntN(3) != 0 && (hunks > 0 || i+6 <= len(lines))) {
				out = append(out, lines[i])
				i++
				continue
			}
			// A hunk: one context line, a removed line, an added one, one
			// context line.
			b.WriteString("@@\n")
			fmt.Fprintf(&b, " %s", lines[i])
			fmt.Fprintf(&b, "-%s", lines[i+1])
			added := fmt.Sprintf("added %d %d\n", n, r.Int())
			fmt.Fprintf(&b, "+%s", added)
			fmt.Fprintf(&b, " %s", lines[i+2])
			out = append(out, lines[i], added, lines[i+2])
			i += 3
			hunks++
		}
		delete(after, name)
		after[dest] = strings.Join(out, "")
	}
	for k := range r.IntN(3) {
		name := fmt.Sprintf("new%d/file%d.txt", k, r.Int())
		fmt.Fprintf(&b, "*** Add File: %s\n+new file %d\n+second line\n", name, k)
		after[name] = fmt.Sprintf("new file %d\nsecond line\n", k)
	}
	b.WriteString("*** End Patch\n")
	return b.String(), after
}

func randomTree(r *rand.Rand) tree {
	out := tree{}
	for f := range 2 + r.IntN(4) {
		var b strings.Builder
		for l := range 3 + r.IntN(12) {
			fmt.Fprintf(&b, "file %d line %d %x\n", f, l, r.Uint32())
		}
		out[fmt.Sprintf("d%d/f%d.txt", f%2, f)] = b.String()
	}
	return out
}

// TestFailureAnywhereChangesNothing: random multi-file patches, made to
// fail at every point — a line of the patch broken, a hunk's context
// changed, each write failed in turn — leave every file byte for byte as
// it was; unbroken, they give the tree they describe.
func TestFailureAnywhereChangesNothing(t *testing.T) {
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	r := rand.New(rand.NewPCG(24, 42))
	for round := range rounds {
		before := randomTree(r)
		patch, after := randomPatch(r, before)
		if !strings.Contains(patch, "*** Add File") && !strings.Contains(patch, "*** Update File") && !strings.Contains(patch, "*** Delete File") {
			continue
		}
		lines := strings.SplitAfter(patch, "\n")
		lines = lines[:len(lines)-1]
		check := func(what string, p Params) {
			t.Helper()
			env := testEnv(t)
			writeTree(t, env.Root, before)
			want := readTree(t, env.Root)
			if _, terr, _ := apply(t, env, p); terr == nil {
				t.Fatalf("round %d, %s: the broken patch applied\n%s", round, what, p.Input)
			}
			sameTree(t, want, readTree(t, env.Root))
			if t.Failed() {
				t.Fatalf("round %d, %s: files changed by a failed patch\n%s", round, what, p.Input)
			}
		}
		// Parse: one line broken (the markers and hunk lines alike).
		i := 1 + r.IntN(len(lines)-1)
		broken := append(append(append([]string{}, lines[:i]...), "?? not a patch line\n"), lines[i+1:]...)
		check(fmt.Sprintf("line %d broken", i+1), Params{Input: strings.Join(broken, "")})
		// Locate: a context or removed line that the file does not hold.
		for j, l := range lines {
			if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-")) && r.IntN(2) == 0 {
				moved := append([]string{}, lines...)
				moved[j] = l[:1] + "nowhere in any file\n"
				check(fmt.Sprintf("hunk line %d changed", j+1), Params{Input: strings.Join(moved, "")})
				break
			}
		}
		// Write: each change to the disk failed in turn.
		env := testEnv(t)
		writeTree(t, env.Root, before)
		pl, acts := planFor(t, env, patch)
		pl.release()
		for k := range acts {
			var calls atomic.Int32
			beforeAction = func(path string) error {
				if calls.Add(1) == int32(k+1) {
					return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission} // as a read-only file gives
				}
				return nil
			}
			env := testEnv(t)
			writeTree(t, env.Root, before)
			want := readTree(t, env.Root)
			_, terr, _ := apply(t, env, Params{Input: patch})
			beforeAction = nil
			if terr == nil || !strings.Contains(terr.Message, "put back") {
				t.Fatalf("round %d, write %d of %d failed: got %v", round, k+1, len(acts), terr)
			}
			sameTree(t, want, readTree(t, env.Root))
			if t.Failed() {
				t.Fatalf("round %d: write %d of %d failed and files changed\n%s", round, k+1, len(acts), patch)
			}
		}
		// Stage: writing the new content of each rewritten file beside it
		// failed in turn (the files are staged side by side).
		for k := range rewrites(acts) {
			var calls atomic.Int32
			beforeStage = func(path string) error {
				if calls.Add(1) == int32(k+1) {
					return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission} // as a read-only file gives
				}
				return nil
			}
			env := testEnv(t)
			writeTree(t, env.Root, before)
			want := readTree(t, env.Root)
			_, terr, _ := apply(t, env, Params{Input: patch})
			beforeStage = nil
			if terr == nil || !strings.Contains(terr.Message, "nothing changed") {
				t.Fatalf("round %d, staging %d of %d failed: got %v", round, k+1, rewrites(acts), terr)
			}
			sameTree(t, want, readTree(t, env.Root))
			if t.Failed() {
				t.Fatalf("round %d: staging %d of %d failed and files changed\n%s", round, k+1, rewrites(acts), patch)
			}
		}
		// Unbroken: the tree it describes.
		env = testEnv(t)
		writeTree(t, env.Root, before)
		if _, terr, _ := apply(t, env, Params{Input: patch}); terr != nil {
			t.Fatalf("round %d: %s: %s\n%s", round, terr.Code, terr.Message, patch)
		}
		sameTree(t, after, contents(readTree(t, env.Root)))
		if t.Failed() {
			t.Fatalf("round %d: wrong result\n%s", round, patch)
		}
	}
}

// planFor works a patch out in memory and lists the changes it would
// make to the disk.
func planFor(t *testing.T, env *tool.Env, patch string) (*plan, []*action) {
	t.Helper()
	parsed, err := parsePatch(patch, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := &plan{env: env}
	if err := pl.prepare(t.Context(), parsed.ops); err != nil {
		t.Fatal(err)
	}
	if err := pl.run(parsed.ops); err != nil {
		t.Fatal(err)
	}
	return pl, pl.actions()
}

// TestReadOnlyFolderFailsCleanly: a real write failure (a folder the
// process may not write), not an injected one, is undone too.
func TestReadOnlyFolderFailsCleanly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders; the injected failures of TestFailureAnywhereChangesNothing cover this")
	}
	env := testEnv(t)
	writeTree(t, env.Root, tree{"a.txt": "a\n", "locked/b.txt": "b\n"})
	locked := filepath.Join(env.Root, "locked")
	os.Chmod(locked, 0o555)
	defer os.Chmod(locked, 0o755)
	want := readTree(t, env.Root)
	_, terr, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: locked/b.txt\n-b\n+B\n*** End Patch\n"})
	if terr == nil || terr.Code != "permission" {
		t.Fatalf("got %v, want permission", terr)
	}
	sameTree(t, want, readTree(t, env.Root))
}

// rewrites counts the actions that replace a file's content.
func rewrites(acts []*action) int {
	n := 0
	for _, a := range acts {
		if a.kind == "write" {
			n++
		}
	}
	return n
}
