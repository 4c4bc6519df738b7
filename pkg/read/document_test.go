package read

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// A long DOCX made by python3-docx is paged exactly like a text file.
func TestReadDOCXPaged(t *testing.T) {
	py := peer.RequirePython(t, "docx", "python3-docx")
	env := testEnv(t)
	script := `import docx, sys
d = docx.Document()
d.add_heading("Long document", level=1)
for i in range(1, 1501):
    d.add_paragraph("paragraph %d" % i)
d.save(sys.argv[1])`
	path := filepath.Join(env.Root, "long.docx")
	if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// 1 heading + 1500 paragraphs, each followed by a blank line but the last.
	const total = 2 + 1500*2 - 1
	resp, res := mustRead(t, env, Params{Path: "long.docx"})
	if res.Kind != KindDocument || res.Format != "docx" || res.MIME == "" || res.SHA256 == nil {
		t.Fatalf("result %+v", res)
	}
	// The 24 KiB cap comes before the 2000 lines, as for text.
	if res.Lines.Start != 1 || res.Lines.End >= DefaultLimit || res.Lines.End < 1000 || res.Lines.Total != total || !res.Lines.TotalExact {
		t.Errorf("lines %+v", res.Lines)
	}
	if len(resp.Output) > MaxOutputBytes {
		t.Errorf("output %d bytes", len(resp.Output))
	}
	if !strings.HasPrefix(resp.Output, "     1→# Long document\n     2→\n     3→paragraph 1\n") {
		t.Errorf("output starts %q", resp.Output[:60])
	}
	if resp.Continuation == nil || resp.Continuation.NextOffset != res.Lines.End+1 || !resp.Truncated ||
		!strings.Contains(resp.Continuation.Hint, "24 KiB cap") {
		t.Errorf("continuation %+v truncated %v", resp.Continuation, resp.Truncated)
	}
	resp, res = mustRead(t, env, Params{Path: "long.docx", Offset: total, Limit: 5})
	if want := fmt.Sprintf("%6d→paragraph 1500\n", total); resp.Output != want || resp.Continuation != nil {
		t.Errorf("last line %q %+v", resp.Output, resp.Continuation)
	}
	_, res = mustRead(t, env, Params{Path: "long.docx", Pages: "2", Limit: 1})
	if !hasNote(res, "pages selects slides and sheets") {
		t.Errorf("pages on a docx: notes %v", res.Notes)
	}
	readErr(t, env, Params{Path: "long.docx", Offset: total + 1}, tool.CodeInvalidArgs)
}

// --pages picks slides of a PPTX made by pandoc.
func TestReadPPTXPages(t *testing.T) {
	pandoc := peer.Require(t, "pandoc", "pandoc")
	env := testEnv(t)
	md := filepath.Join(env.Root, "deck.md")
	os.WriteFile(md, []byte("# One\n\n- a\n\n# Two\n\n- b\n\n# Three\n\n- c\n"), 0o644)
	if out, err := exec.Command(pandoc, md, "-o", filepath.Join(env.Root, "deck.pptx")).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	resp, res := mustRead(t, env, Params{Path: "deck.pptx", Pages: "2-3"})
	if res.Slides == nil || *res.Slides != 3 || res.Pages == nil || fmt.Sprint(res.Pages.Shown) != "[2 3]" {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(resp.Output, "Slide 1") || !strings.Contains(resp.Output, "## Slide 2: Two") || !strings.Contains(resp.Output, "- c") {
		t.Errorf("output %q", resp.Output)
	}
	readErr(t, env, Params{Path: "deck.pptx", Pages: "4"}, tool.CodeInvalidArgs)
}

// Encrypted, damaged and bombed office files get their own errors.
func TestReadDocumentErrors(t *testing.T) {
	env := testEnv(t)
	ole := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...)
	for _, r := range "EncryptionInfo" {
		ole = append(ole, byte(r), 0)
	}
	write(t, env, "secret.docx", ole)
	te := readErr(t, env, Params{Path: "secret.docx"}, tool.CodeEncrypted)
	if !strings.Contains(te.Message, "password-protected DOCX") {
		t.Errorf("encrypted: %q", te.Message)
	}
	write(t, env, "broken.xlsx", []byte("PK\x03\x04 this is no archive"))
	te = readErr(t, env, Params{Path: "broken.xlsx"}, tool.CodeCorruptFile)
	if !strings.Contains(te.Message, "not a readable XLSX document") {
		t.Errorf("corrupt: %q", te.Message)
	}
}
