package render

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/image/font/sfnt"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// CJKPackage is the Debian package render names when no CJK font is
// found: Noto CJK, what Debian, Ubuntu and Fedora install by default.
const CJKPackage = "fonts-noto-cjk"

// isWide is true for East Asian wide characters: CJK ideographs, kana,
// Hangul, their punctuation and fullwidth forms.
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) || (r >= 0x3200 && r <= 0x33FF)
}

// preferredFonts are CJK fonts, best first; other font files in the
// system folders are tried after them.
var preferredFonts = []string{
	"NotoSansCJK-Regular.ttc", "NotoSansCJK-Regular.otc", "NotoSansCJKsc-Regular.otf", "NotoSansCJKSC-Regular.otf",
	"SourceHanSans-Regular.ttc", "SourceHanSansSC-Regular.otf",
	"wqy-zenhei.ttc", "wqy-microhei.ttc", "DroidSansFallbackFull.ttf", "DroidSansFallback.ttf",
	"msyh.ttc", "msyh.ttf", "simsun.ttc", "simhei.ttf", "uming.ttc", "ukai.ttc",
	"NanumGothic.ttf", "Arial Unicode.ttf", "ipag.ttf", "ipagp.ttf", "takao-gothic.ttf",
}

// fontExtensions are the font files render reads: TrueType or CFF
// outlines, single fonts or collections.
var fontExtensions = []string{".ttf", ".ttc", ".otf", ".otc"}

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

// fontFace is one face of a font file, read from the open file as
// needed: TrueType or CFF outlines alike.
type fontFace struct {
	path string
	font *sfnt.Font
	buf  sfnt.Buffer
	os2  []byte   // the raw OS/2 table, nil if none
	file *os.File // nil for a font in memory
}

func (f *fontFace) has(r rune) bool {
	if r > 0xFFFF {
		return false // fpdf maps the Basic Multilingual Plane only: it panics past it
	}
	i, err := f.font.GlyphIndex(&f.buf, r)
	return err == nil && i != 0
}

// name is the face's PostScript name, else its family's.
func (f *fontFace) name() string {
	for _, id := range []sfnt.NameID{sfnt.NameIDPostScript, sfnt.NameIDFamily} {
		if s, err := f.font.Name(&f.buf, id); err == nil && s != "" {
			return s
		}
	}
	return filepath.Base(f.path)
}

func (f *fontFace) close() {
	if f.file != nil {
		f.file.Close()
		f.file = nil
	}
}

// loadFaces opens a font file and returns its faces (one, or each of a
// collection), which share the open file. A face whose OS/2 table forbids
// embedding or subsetting is left out, and a file of none is an error.
func loadFaces(path string) ([]*fontFace, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, fmt.Errorf("%s is not a font file", path)
	}
	faces, err := parseFaces(file, path)
	if err != nil {
		file.Close()
		return nil, err
	}
	for _, f := range faces {
		f.file = file
	}
	return faces, nil
}

// parseFaces reads the faces of the font file r: a collection's, or the
// one of a single font. Each is read through a faceReader, so that fonts
// whose tables are not aligned as sfnt insists (WenQuanYi Zen Hei's) are
// read too.
func parseFaces(r io.ReaderAt, path string) ([]*fontFace, error) {
	offsets := []int64{0}
	var magic [12]byte
	if _, err := r.ReadAt(magic[:], 0); err != nil {
		return nil, fmt.Errorf("%s is not a font file", path)
	}
	if string(magic[:4]) == "ttcf" {
		n := int(binary.BigEndian.Uint32(magic[8:]))
		if n < 1 || n > maxFaces {
			return nil, fmt.Errorf("%s: a collection of %d fonts", path, n)
		}
		list := make([]byte, 4*n)
		if _, err := r.ReadAt(list, 12); err != nil {
			return nil, fmt.Errorf("%s: damaged font collection", path)
		}
		offsets = offsets[:0]
		for i := range n {
			offsets = append(offsets, int64(binary.BigEndian.Uint32(list[4*i:])))
		}
	}
	var faces []*fontFace
	var firstErr error
	refused := false
	for _, off := range offsets {
		fr, err := newFaceReader(r, off)
		if err == nil {
			var f *sfnt.Font
			if f, err = sfnt.ParseReaderAt(fr); err == nil {
				os2 := rawTable(fr, "OS/2")
				if len(os2) >= 10 && binary.BigEndian.Uint16(os2[8:])&0x0302 != 0 {
					refused = true // restricted licence, bitmap embedding only, or no subsetting
					continue
				}
				faces = append(faces, &fontFace{path: path, font: f, os2: os2})
				continue
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	switch {
	case len(faces) > 0:
		return faces, nil
	case refused:
		return nil, fmt.Errorf("%s does not permit embedding (its OS/2 fsType)", path)
	}
	return nil, fmt.Errorf("%s: %w", path, firstErr)
}

// Bounds of the font files read.
const (
	maxFaces  = 256  // in a collection
	maxTables = 1024 // in a face
)

// faceReader presents one face of a font file as a font file of its
// own, its table directory rewritten so that each table starts on a
// four-byte boundary; the tables are read from the file where they are.
type faceReader struct {
	r    io.ReaderAt
	head []byte // offset table and table records
	segs []faceSeg
	size int64
}

// faceSeg is a table: at in the face, from in the file, n bytes.
type faceSeg struct{ at, from, n int64 }

func newFaceReader(r io.ReaderAt, off int64) (*faceReader, error) {
	head := make([]byte, 12)
	if _, err := r.ReadAt(head, off); err != nil {
		return nil, fmt.Errorf("damaged font")
	}
	n := int(binary.BigEndian.Uint16(head[4:]))
	if n == 0 || n > maxTables {
		return nil, fmt.Errorf("a font of %d tables", n)
	}
	head = append(head, make([]byte, 16*n)...)
	if _, err := r.ReadAt(head[12:], off+12); err != nil {
		return nil, fmt.Errorf("damaged font")
	}
	fr := &faceReader{r: r, head: head}
	at := int64(len(head))
	for i := range n {
		rec := head[12+16*i:]
		at = (at + 3) &^ 3
		from, length := int64(binary.BigEndian.Uint32(rec[8:])), int64(binary.BigEndian.Uint32(rec[12:]))
		binary.BigEndian.PutUint32(rec[8:], uint32(at))
		fr.segs = append(fr.segs, faceSeg{at, from, length})
		at += length
		if at > 1<<32 {
			return nil, fmt.Errorf("damaged font")
		}
	}
	fr.size = at
	return fr, nil
}

func (f *faceReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		if pos < 0 || pos >= f.size {
			return n, io.EOF
		}
		if pos < int64(len(f.head)) {
			n += copy(p[n:], f.head[pos:])
			continue
		}
		next := f.size // where the padding after pos ends
		inTable := false
		for _, s := range f.segs {
			if pos >= s.at && pos < s.at+s.n {
				k := int(min(int64(len(p)-n), s.at+s.n-pos))
				m, err := f.r.ReadAt(p[n:n+k], s.from+pos-s.at)
				n += m
				if m < k {
					if err == nil {
						err = io.ErrUnexpectedEOF
					}
					return n, err
				}
				inTable = true
				break
			}
			if s.at > pos {
				next = min(next, s.at)
			}
		}
		if !inTable {
			for ; n < len(p) && off+int64(n) < next; n++ {
				p[n] = 0
			}
		}
	}
	return n, nil
}

// rawTable reads one table of a face, or nil.
func rawTable(fr *faceReader, tag string) []byte {
	for i, s := range fr.segs {
		if string(fr.head[12+16*i:][:4]) != tag || s.n > 1<<16 {
			continue
		}
		data := make([]byte, s.n)
		if _, err := fr.ReadAt(data, s.at); err != nil {
			return nil
		}
		return data
	}
	return nil
}

// candidateFonts lists font files to try for characters the built-in
// fonts lack: render.fonts first, then the preferred CJK fonts, then every
// other font in the system's folders.
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
			if !d.IsDir() && slices.Contains(fontExtensions, strings.ToLower(filepath.Ext(p))) {
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

// fallbackFace finds the font face that has the most of the characters
// missing from the built-in fonts, stopping at the first file that has
// them all; among the faces of a collection that do as well, the one for
// the text's region (regionFace). A font named in render.fonts that cannot
// be used is a warning. The face returned is open: the caller closes it.
func (j *job) fallbackFace(missing []rune) (*fontFace, []rune) {
	var best *fontFace
	bestMissing := missing
	configured := map[string]bool{}
	if j.env.Config != nil {
		for _, p := range j.env.Config.Render.Fonts {
			configured[j.env.Abs(p)] = true
		}
	}
	region := regionOf(missing)
	for _, p := range candidateFonts(j.env) {
		if err := j.ctx.Err(); err != nil {
			break
		}
		faces, err := loadFaces(p)
		if err != nil {
			if configured[p] {
				j.warn("render.fonts: %v", err)
			}
			continue
		}
		var pick *fontFace
		var pickLack []rune
		for _, face := range faces {
			var lack []rune
			for _, r := range missing {
				if !face.has(r) {
					lack = append(lack, r)
				}
			}
			if pick == nil || len(lack) < len(pickLack) || (len(lack) == len(pickLack) && regionScore(face, region) > regionScore(pick, region)) {
				pick, pickLack = face, lack
			}
		}
		if len(pickLack) < len(bestMissing) {
			if best != nil {
				best.close()
			}
			best, bestMissing = pick, pickLack
		} else {
			pick.close()
		}
		if len(bestMissing) == 0 {
			break
		}
	}
	return best, bestMissing
}

// regionOf names the CJK region whose glyph forms suit the characters:
// Japanese with kana, Korean with Hangul and no Han, else Chinese
// (simplified) with Han, else none.
func regionOf(rs []rune) string {
	han, hangul := false, false
	for _, r := range rs {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return "jp"
		case unicode.Is(unicode.Hangul, r):
			hangul = true
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	switch {
	case hangul && !han:
		return "kr"
	case han:
		return "sc"
	}
	return ""
}

// regionScore prefers, among a collection's faces, proportional ones of
// the region (Noto Sans CJK SC for Chinese, … JP, … KR).
func regionScore(f *fontFace, region string) int {
	name := strings.ToLower(f.name())
	score := 0
	if !strings.Contains(name, "mono") {
		score++
	}
	if region != "" && (strings.Contains(name, "cjk"+region) || strings.HasSuffix(name, " "+region) || strings.Contains(name, "sans"+region)) {
		score += 2
	}
	return score
}
