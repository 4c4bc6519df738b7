package render

import (
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/mcode-dev/mcode/internal/peer"
)

// The CJK fonts scripts/peers.sh installs: Noto CJK (CFF outlines, what
// Debian, Ubuntu and Fedora install by default) and WenQuanYi Zen Hei
// (TrueType outlines).
const (
	notoCJK   = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
	wqyZenHei = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
)

// hideSystemFonts makes render see an empty folder for the system's
// fonts, until the test ends.
func hideSystemFonts(t *testing.T) string {
	dir := t.TempDir()
	saved := systemFontDirs
	t.Cleanup(func() { systemFontDirs = saved })
	systemFontDirs = func(string) []string { return []string{dir} }
	return dir
}

// mixedCJK puts Chinese, Japanese, Korean and Latin text in one line.
const mixedCJK = "中英混排的段落 mixed with 日本語のかな and 한국어 텍스트 end"

// TestCJKFromOneSystemFont: a machine with one CJK font, Noto CJK (CFF
// outlines) or WenQuanYi Zen Hei (TrueType), renders Chinese, Japanese and
// Korean mixed with Latin text in one line: the font is embedded as a
// subset with a Unicode map, pdftotext gives the line back, and the same
// input gives the same bytes.
func TestCJKFromOneSystemFont(t *testing.T) {
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	for _, c := range []struct{ path, pkg, name string }{
		{notoCJK, "fonts-noto-cjk", "notosanscjk"},
		{wqyZenHei, "fonts-wqy-zenhei", "wenquanyizenhei"},
	} {
		t.Run(c.pkg, func(t *testing.T) {
			src := peer.RequireFile(t, c.path, c.pkg)
			dir := hideSystemFonts(t)
			if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
				t.Fatal(err)
			}
			env := testEnv(t)
			md := "# 报告 Report\n\n" + mixedCJK + "\n\n| 名前 | 값 |\n|---|---|\n| 東京 | 42 |\n"
			a := mustRender(t, env, Params{Format: "pdf", Markdown: md, Out: "a.pdf"})
			b := mustRender(t, env, Params{Format: "pdf", Markdown: md, Out: "b.pdf"})
			if a.SHA256 != b.SHA256 {
				t.Errorf("two renders differ: %s, %s", a.SHA256, b.SHA256)
			}
			if len(a.Warnings) > 0 {
				t.Errorf("warnings: %v", a.Warnings)
			}
			path := filepath.Join(env.Root, "a.pdf")
			out, err := exec.Command(pdftotext, path, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"报告 Report", mixedCJK, "名前", "값", "東京"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("pdftotext lacks %q:\n%s", want, out)
				}
			}
			fonts, _ := exec.Command("pdffonts", path).Output()
			found := false
			for _, l := range strings.Split(strings.TrimSpace(string(fonts)), "\n")[2:] {
				f := strings.Fields(l)
				if n := len(f); n < 6 || f[n-5] != "yes" || f[n-4] != "yes" || f[n-3] != "yes" {
					t.Errorf("font not embedded, subset and mapped to Unicode: %s", l)
				}
				found = found || strings.Contains(strings.ToLower(f[0]), "+fallback"+c.name)
			}
			if !found {
				t.Errorf("no subset of the %s font:\n%s", c.pkg, fonts)
			}
			// A subset: the whole font is megabytes, the file tens of KB.
			if a.Bytes > 200<<10 {
				t.Errorf("the PDF is %d bytes: the font is not subset", a.Bytes)
			}
		})
	}
}

// TestTrueTypeSubsetKeepsOutlines: the glyphs of a TrueType font come out
// with the same outlines (quadratic curves carry over as they are) and
// advances; those of Noto CJK's cubic curves cover the same pixels within
// one percent (coordinates are whole font units).
func TestTrueTypeSubsetKeepsOutlines(t *testing.T) {
	goFont, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	compareSubset(t, goFont, []rune("AgQ&@ßÆ"), 0)
	noto := peer.RequireFile(t, notoCJK, "fonts-noto-cjk")
	faces, err := loadFaces(noto)
	if err != nil {
		t.Fatal(err)
	}
	defer faces[0].close()
	compareSubset(t, faces[0].font, []rune("中英混排的段落あア한글鬱"), 0.01)
	// WenQuanYi Zen Hei: TrueType, its tables unaligned (read through a
	// faceReader); quadratic curves carry over, to a rounding.
	wqy := peer.RequireFile(t, wqyZenHei, "fonts-wqy-zenhei")
	if faces, err = loadFaces(wqy); err != nil {
		t.Fatal(err)
	}
	defer faces[0].close()
	compareSubset(t, faces[0].font, []rune("中英混排的段落あア한글鬱"), 0.002)
}

// compareSubset builds a subset of runes from src and compares each
// glyph with the source's: the advance exactly, the pixels a glyph
// covers at 200 px within share (0: the same pixels).
func compareSubset(t *testing.T, src *sfnt.Font, runes []rune, share float64) {
	t.Helper()
	data, err := trueTypeSubset(src, runes, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sfnt.Parse(data)
	if err != nil {
		t.Fatalf("the subset does not parse: %v", err)
	}
	if sub.NumGlyphs() != len(runes)+1 {
		t.Errorf("%d glyphs, want %d", sub.NumGlyphs(), len(runes)+1)
	}
	var b1, b2 sfnt.Buffer
	const px = 200
	for _, r := range runes {
		i1, _ := src.GlyphIndex(&b1, r)
		i2, err := sub.GlyphIndex(&b2, r)
		if err != nil || i2 == 0 {
			t.Errorf("%q is not in the subset", r)
			continue
		}
		a1, _ := src.GlyphAdvance(&b1, i1, fixed.I(px), font.HintingNone)
		a2, _ := sub.GlyphAdvance(&b2, i2, fixed.I(px), font.HintingNone)
		if a1 != a2 {
			t.Errorf("%q: advance %v, want %v", r, a2, a1)
		}
		s1, _ := src.LoadGlyph(&b1, i1, fixed.I(px), nil)
		s2, err := sub.LoadGlyph(&b2, i2, fixed.I(px), nil)
		if err != nil {
			t.Fatalf("%q: %v", r, err)
		}
		m1, m2 := coverage(s1, px), coverage(s2, px)
		var diff, total float64
		for k := range m1 {
			diff += abs(m1[k] - m2[k])
			total += m1[k]
		}
		if total == 0 || diff/total > share+1e-9 {
			t.Errorf("%q: the outline covers %.2f%% other pixels (%.0f of %.0f)", r, 100*diff/total, diff, total)
		}
	}
}

// coverage rasterizes a glyph's segments (origin at 0, px tall) into a
// square of px×px, the baseline 80% down.
func coverage(segs []sfnt.Segment, px int) []float64 {
	z := vector.NewRasterizer(px, px)
	base := float32(px) * 0.8
	pt := func(p fixed.Point26_6) (float32, float32) { return float32(p.X) / 64, float32(p.Y)/64 + base }
	for _, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			z.MoveTo(pt(s.Args[0]))
		case sfnt.SegmentOpLineTo:
			z.LineTo(pt(s.Args[0]))
		case sfnt.SegmentOpQuadTo:
			x1, y1 := pt(s.Args[0])
			x2, y2 := pt(s.Args[1])
			z.QuadTo(x1, y1, x2, y2)
		case sfnt.SegmentOpCubeTo:
			x1, y1 := pt(s.Args[0])
			x2, y2 := pt(s.Args[1])
			x3, y3 := pt(s.Args[2])
			z.CubeTo(x1, y1, x2, y2, x3, y3)
		}
	}
	z.ClosePath()
	dst := make([]float64, px*px)
	img := image.NewAlpha(image.Rect(0, 0, px, px))
	z.Draw(img, img.Bounds(), image.Opaque, image.Point{})
	for i, a := range img.Pix {
		dst[i] = float64(a) / 255
	}
	return dst
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
