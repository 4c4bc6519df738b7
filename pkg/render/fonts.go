package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/image/font/sfnt"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// CJKPackage is the Debian package render names when no CJK font is found:
// a TrueType-outline CJK font, the kind PDF subsetting takes.
const CJKPackage = "fonts-wqy-zenhei"

// maxFontMiB bounds a font file render loads.
const maxFontMiB = 64

// isWide is true for East Asian wide characters: CJK ideographs, kana,
// Hangul, their punctuation and fullwidth forms.
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) || (r >= 0x3200 && r <= 0x33FF)
}

// preferredFonts are CJK fonts with TrueType outlines, best first; other
// font files in the system folders are tried after them.
var preferredFonts = []string{
	"wqy-zenhei.ttc", "wqy-microhei.ttc", "DroidSansFallbackFull.ttf", "DroidSansFallback.ttf",
	"msyh.ttc", "msyh.ttf", "simsun.ttc", "simhei.ttf", "uming.ttc", "ukai.ttc",
	"NanumGothic.ttf", "Arial Unicode.ttf", "ipag.ttf", "ipagp.ttf", "takao-gothic.ttf",
}

// systemFontDirs are the folders fonts are searched in (tests point it
// elsewhere).
var systemFontDirs = fontDirs

// fontDirs are the folders fonts are installed in, per system.
func fontDirs(home string) []string {
	switch runtime.GOOS {
	case "darwin":
		return []string{"/System/Library/Fonts", "/Library/Fonts", filepath.Join(home, "Library/Fonts")}
	case "windows":
		return []string{filepath.Join(os.Getenv("WINDIR"), "Fonts")}
	}
	return []string{"/usr/share/fonts", "/usr/local/share/fonts", filepath.Join(home, ".local/share/fonts"), filepath.Join(home, ".fonts")}
}

// fontFace is one usable TrueType face: its bytes as a standalone font
// file and a parsed copy to ask which characters it has.
type fontFace struct {
	path string
	data []byte
	font *sfnt.Font
	buf  sfnt.Buffer
}

func (f *fontFace) has(r rune) bool {
	if r > 0xFFFF {
		return false // fpdf maps the Basic Multilingual Plane only: it panics past it
	}
	i, err := f.font.GlyphIndex(&f.buf, r)
	return err == nil && i != 0
}

// loadFace reads a .ttf, or the first face of a .ttc collection, if it has
// TrueType (glyf) outlines; CFF-outline fonts (.otf, Noto CJK) are not
// what the PDF writer embeds, and are skipped.
func loadFace(path string) (*fontFace, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxFontMiB<<20 {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFontMiB)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("ttcf")) {
		if data, err = firstFace(data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if !hasTable(data, "glyf") {
		return nil, fmt.Errorf("%s has no TrueType outlines (CFF fonts cannot be embedded here)", path)
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &fontFace{path: path, data: data, font: f}, nil
}

// hasTable looks a table up in a font's table directory.
func hasTable(data []byte, tag string) bool {
	if len(data) < 12 {
		return false
	}
	n := int(binary.BigEndian.Uint16(data[4:6]))
	for i := 0; i < n && 12+16*i+16 <= len(data); i++ {
		if string(data[12+16*i:12+16*i+4]) == tag {
			return true
		}
	}
	return false
}

// firstFace copies the first font of a TrueType collection into a font
// file of its own: the collection's tables are shared and addressed from
// the start of the collection, so each is copied and its offset rewritten.
func firstFace(ttc []byte) ([]byte, error) {
	bad := errors.New("damaged font collection")
	if len(ttc) < 16 {
		return nil, bad
	}
	off := int(binary.BigEndian.Uint32(ttc[12:16]))
	if off+12 > len(ttc) {
		return nil, bad
	}
	n := int(binary.BigEndian.Uint16(ttc[off+4 : off+6]))
	dir := off + 12
	if dir+16*n > len(ttc) {
		return nil, bad
	}
	head := 12 + 16*n
	out := make([]byte, head, max(head, len(ttc)/2))
	copy(out, ttc[off:off+12])
	for i := range n {
		rec := ttc[dir+16*i : dir+16*i+16]
		start, length := int(binary.BigEndian.Uint32(rec[8:12])), int(binary.BigEndian.Uint32(rec[12:16]))
		if start < 0 || length < 0 || start+length > len(ttc) {
			return nil, bad
		}
		copy(out[12+16*i:], rec[:8])
		binary.BigEndian.PutUint32(out[12+16*i+8:], uint32(len(out)))
		binary.BigEndian.PutUint32(out[12+16*i+12:], uint32(length))
		out = append(out, ttc[start:start+length]...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	return out, nil
}

// candidateFonts lists font files to try for characters the built-in
// fonts lack: render.fonts first, then the preferred CJK fonts, then every
// other TrueType font in the system's folders.
func candidateFonts(env *tool.Env) []string {
	var out []string
	if env.Config != nil {
		for _, p := range env.Config.Render.Fonts {
			out = append(out, env.Abs(p))
		}
	}
	var found []string
	for _, dir := range systemFontDirs(env.UserHome) {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(p)); !d.IsDir() && (ext == ".ttf" || ext == ".ttc") {
				found = append(found, p)
			}
			return nil
		})
	}
	rank := func(p string) int {
		for i, name := range preferredFonts {
			if strings.EqualFold(filepath.Base(p), name) {
				return i
			}
		}
		return len(preferredFonts)
	}
	sort.SliceStable(found, func(a, b int) bool { return rank(found[a]) < rank(found[b]) })
	return append(out, found...)
}

// fallbackFace finds the font that has the most of the characters
// missing from the built-in fonts, stopping at the first that has them
// all. A font named in render.fonts that cannot be used is a warning.
func (j *job) fallbackFace(missing []rune) (*fontFace, []rune) {
	var best *fontFace
	bestMissing := missing
	configured := map[string]bool{}
	if j.env.Config != nil {
		for _, p := range j.env.Config.Render.Fonts {
			configured[j.env.Abs(p)] = true
		}
	}
	for _, p := range candidateFonts(j.env) {
		if err := j.ctx.Err(); err != nil {
			return best, bestMissing
		}
		face, err := loadFace(p)
		if err != nil {
			if configured[p] {
				j.warn("render.fonts: %v", err)
			}
			continue
		}
		var lack []rune
		for _, r := range missing {
			if !face.has(r) {
				lack = append(lack, r)
			}
		}
		if len(lack) < len(bestMissing) {
			best, bestMissing = face, lack
		}
		if len(lack) == 0 {
			break
		}
	}
	return best, bestMissing
}
