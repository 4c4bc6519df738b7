package render

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/pdftext"
)

// deepLevels is how deep deepDoc nests: within MaxDepth, far past what a
// page has room to indent.
const deepLevels = 44

// deepDoc nests block quotes, then list items (each with a second
// paragraph, every other one a task), deepLevels deep; each level's text
// names its level.
func deepDoc() string {
	var b strings.Builder
	for d := 1; d <= deepLevels; d++ {
		fmt.Fprintf(&b, "%s quote level %d\n\n", strings.Repeat(">", d), d)
	}
	for d := 0; d < deepLevels; d++ {
		pad := strings.Repeat("  ", d)
		task := ""
		if d%2 == 1 {
			task = "[ ] "
		}
		fmt.Fprintf(&b, "%s- %sitem level %d\n\n%s  more level %d\n\n", pad, task, d, pad, d)
	}
	return b.String()
}

// deepPhrases are the texts deepDoc holds, each of which must come back
// whole, on one line.
func deepPhrases() []string {
	var out []string
	for d := 1; d <= deepLevels; d++ {
		out = append(out, fmt.Sprintf("quote level %d", d))
	}
	for d := 0; d < deepLevels; d++ {
		out = append(out, fmt.Sprintf("item level %d", d), fmt.Sprintf("more level %d", d))
	}
	return out
}

func checkPhrases(t *testing.T, what, text string) {
	t.Helper()
	for _, p := range deepPhrases() {
		if !regexp.MustCompile(`(?m)` + regexp.QuoteMeta(p) + `$`).MatchString(text) {
			t.Errorf("%s: %q is not on a line of its own in the text read back", what, p)
		}
	}
}

// TestDeepNestingStaysOnThePage: a PDF of quotes and lists nested 44
// deep gives every level's text back whole (mcode's own PDF reader; the
// indentation used to push it into a column a letter wide, or off the
// page).
func TestDeepNestingStaysOnThePage(t *testing.T) {
	env := testEnv(t)
	mustRender(t, env, Params{Format: "pdf", Markdown: deepDoc(), Out: "deep.pdf"})
	f, err := os.Open(filepath.Join(env.Root, "deep.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	doc, err := pdftext.Open(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for n := 1; n <= doc.NumPages(); n++ {
		text, err := doc.PageText(n)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(text + "\n")
	}
	checkPhrases(t, "pdf", all.String())
}

// TestDeepNestingPopplerSeesIt: pdftotext, which leaves out text off the
// page, finds every level.
func TestDeepNestingPopplerSeesIt(t *testing.T) {
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	env := testEnv(t)
	mustRender(t, env, Params{Format: "pdf", Markdown: deepDoc(), Out: "deep.pdf"})
	out, err := exec.Command(pdftotext, filepath.Join(env.Root, "deep.pdf"), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	checkPhrases(t, "pdftotext", string(out))
}

// TestDeepNestingIndentsAreBounded: every indent the DOCX and the PPTX
// give is within the text's half of the width, and every picture extent
// is positive.
func TestDeepNestingIndentsAreBounded(t *testing.T) {
	env := testEnv(t)
	doc := deepDoc() + strings.Repeat("  ", deepLevels) + "- ![pic](pic.png)\n"
	for _, c := range []struct {
		format, part string
		attr         *regexp.Regexp
		limit        int64
	}{
		{"docx", "word/document.xml", regexp.MustCompile(`w:left="(-?\d+)"`), 4515},
		{"docx", "word/numbering.xml", regexp.MustCompile(`w:left="(-?\d+)"`), 4515},
		{"docx", "word/document.xml", regexp.MustCompile(`cx="(-?\d+)"`), emu(docxTextW)},
		{"pptx", "ppt/slides/slide1.xml", regexp.MustCompile(`marL="(-?\d+)"`), (slideW169 - 2*slideMargin) / 2},
		{"pptx", "ppt/slides/slide1.xml", regexp.MustCompile(` lvl="(-?\d+)"`), 8},
	} {
		mustRender(t, env, Params{Format: c.format, Markdown: doc, Out: "deep." + c.format})
		xml := zipPart(t, filepath.Join(env.Root, "deep."+c.format), c.part)
		ms := c.attr.FindAllStringSubmatch(xml, -1)
		if len(ms) == 0 {
			t.Fatalf("%s %s has no %s", c.format, c.part, c.attr)
		}
		for _, m := range ms {
			if v, _ := strconv.ParseInt(m[1], 10, 64); v < 0 || v > c.limit {
				t.Errorf("%s %s: %s, outside 0…%d", c.format, c.part, m[0], c.limit)
			}
		}
	}
}

// TestDeepNestingLibreOffice: LibreOffice lays the deep DOCX and PPTX out
// with every level's text on the page.
func TestDeepNestingLibreOffice(t *testing.T) {
	if testing.Short() {
		t.Skip("LibreOffice takes seconds: not in the short loop")
	}
	soffice := peer.Require(t, "soffice", "libreoffice-writer-nogui")
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	env := testEnv(t)
	for _, f := range []string{"docx", "pptx"} {
		mustRender(t, env, Params{Format: f, Markdown: deepDoc(), Out: "deep-" + f + "." + f})
	}
	cmd := exec.Command(soffice, "-env:UserInstallation=file://"+filepath.Join(env.Root, "lo-profile"), "--headless", "--norestore",
		"--convert-to", "pdf", "--outdir", filepath.Join(env.Root, "lo"), "deep-docx.docx", "deep-pptx.pptx")
	cmd.Dir = env.Root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, b)
	}
	for _, f := range []string{"docx", "pptx"} {
		out, err := exec.Command(pdftotext, filepath.Join(env.Root, "lo", "deep-"+f+".pdf"), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		checkPhrases(t, f+" in LibreOffice", string(out))
	}
}

// zipPart is one part of a package, as text.
func zipPart(t *testing.T, path, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			return string(b)
		}
	}
	t.Fatalf("%s has no part %s", path, name)
	return ""
}
