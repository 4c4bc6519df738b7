package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReferenceIsCurrent: docs/tools is what the generator writes today,
// page for page, and holds no page of a command that is gone.
func TestReferenceIsCurrent(t *testing.T) {
	files, err := ReferenceFiles()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", ReferenceDir)
	stale := func(what string) {
		t.Errorf("%s: %s is stale; regenerate it with `%s` and commit the result", what, ReferenceDir, RegenerateCommand)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			stale(name + " is missing")
			continue
		}
		if !bytes.Equal(got, want) {
			stale(name + " differs from the generated page")
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, path := range onDisk {
		if _, ok := files[filepath.Base(path)]; !ok {
			stale(filepath.Base(path) + " documents no command")
		}
	}
}

// TestEveryCommandHasAReferenceWithAnExample: every command, and every
// built-in tool, has a page, each with an example; a tool's page carries
// the description and parameters the model sees.
func TestEveryCommandHasAReferenceWithAnExample(t *testing.T) {
	f := referenceFactory()
	pages, err := referencePages(NewCmdRoot(f), f.Tools())
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, p := range pages {
		if strings.TrimSpace(p.Example) == "" {
			t.Errorf("%s has no example: give its command an Example", p.Path)
		}
		if p.Tool != nil {
			tools = append(tools, p.Tool.Name)
			md := string(p.markdown())
			if !strings.Contains(md, mdText(tool0(p.Tool.Description))) {
				t.Errorf("%s: the page lacks the tool's description", p.Path)
			}
			for _, pa := range p.Params {
				if !strings.Contains(md, "| `"+pa.Name+"` |") {
					t.Errorf("%s: the page lacks parameter %s", p.Path, pa.Name)
				}
			}
		}
	}
	for _, tl := range f.Tools() {
		if !slices.Contains(tools, tl.Name) {
			t.Errorf("tool %s has no reference page", tl.Name)
		}
	}
	if len(pages) < 40 {
		t.Errorf("only %d pages", len(pages))
	}
}

// tool0 is the first paragraph of a description.
func tool0(desc string) string {
	first, _, _ := strings.Cut(desc, "\n\n")
	return first
}

// TestManPagesCarryTheToolsText: a tool command's man page is made from
// the text and schema the model sees, as well as the command's help.
func TestManPagesCarryTheToolsText(t *testing.T) {
	f := referenceFactory()
	dir := t.TempDir()
	paths, err := WriteManPages(NewCmdRoot(f), f.Tools(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, filepath.Join(dir, "mcode-task-output.1")) {
		t.Fatalf("no page for mcode task output among %d", len(paths))
	}
	page, err := os.ReadFile(filepath.Join(dir, "mcode-read.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".SH TOOL\n", ".SH PARAMETERS\n", ".TP\n\\fBpath\\fP (string or array, required)\n",
		"Reads a file from the local filesystem", ".IP \\(bu 2\n", ".SH EXAMPLES\n",
		".TP\n\\fB\\-\\-offset\\fP\n",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("mcode-read.1 lacks %q", want)
		}
	}
}
