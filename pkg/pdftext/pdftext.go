// Package pdftext extracts the text of PDF pages.
//
// Parsing (lexer, cross-reference tables and streams, object streams,
// filters, the standard security handler) is github.com/ledongthuc/pdf,
// a module dependency. What it gets wrong or leaves out is done here:
//
//   - The page tree is walked here, from the leaves actually present
//     (the library trusts /Count, so a one-page file claiming a billion
//     pages had a billion), with a cycle check on object numbers and a
//     depth limit; inherited resources come down the same walk, never up
//     a /Parent chain (which may loop).
//   - Fonts are decoded here (ToUnicode CMaps, the standard encodings,
//     /Differences by glyph name, from the rules of the Adobe Glyph List
//     and a short table built on first use). The library's own decoder
//     needs its 4,000-entry glyph map, whose literal is built at package
//     init: 0.25-0.3 ms of every mcode start (GODEBUG=inittrace=1). Our
//     code never calls it, but the linker keeps it all the same: the
//     library puts its Value (holding a *Reader) in an interface, and
//     text/template's dynamic method calls make the linker keep every
//     exported method of such types, GetPlainText and its decoder among
//     them. That cost is the price of the dependency (pdfcpu, the other
//     candidate, adds 1.1 ms of init); see valueLayout for the part of it
//     our code avoids.
//   - RC4 keys shorter than 128 bits are decrypted here (rc4.go): the
//     library uses the whole 16-byte hash as the object key, where PDF
//     32000-1 §7.6.2 takes n+5 bytes, so 40-bit files (what go-pdf/fpdf
//     writes) decoded to garbage.
//   - The /Prev chain of cross-reference sections is checked for loops
//     first (xref.go): the library would follow a loop for ever.
//   - Form XObjects are followed (the text of many PDFs is in them), with
//     the same cycle and depth limits.
package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/ledongthuc/pdf"
)

// Limits of the walks over a document's object graph.
const (
	// MaxTreeDepth bounds the nesting of the page tree (real files have
	// a handful of levels).
	MaxTreeDepth = 64
	// MaxPages bounds the leaves of the page tree.
	MaxPages = 1 << 20
	// MaxFormDepth bounds form XObjects drawn inside each other.
	MaxFormDepth = 16
)

// ErrEncrypted wraps the refusal of an encrypted PDF (a user password,
// or a cipher neither the library nor this package decrypts).
type ErrEncrypted struct{ Err error }

func (e *ErrEncrypted) Error() string { return e.Err.Error() }

// CorruptError is damage in the document's structure.
type CorruptError struct{ Err error }

func (e *CorruptError) Error() string { return e.Err.Error() }

func corrupt(format string, args ...any) error {
	return &CorruptError{fmt.Errorf(format, args...)}
}

// Doc is an open PDF.
type Doc struct {
	rd    *pdf.Reader
	pages []leaf
	// fonts are the decoders of the fonts met so far, by the resources
	// object that names them and the name: pages share their fonts, and
	// looking one up again re-reads and re-parses its objects.
	fonts map[fontRef]fontInfo
	// Encrypted: the file was encrypted with an empty user password and
	// has been decrypted.
	Encrypted bool
}

type fontRef struct {
	resources objKey
	name      string
}

type leaf struct {
	v, resources, mediaBox pdf.Value
}

// Open parses the PDF in f (size bytes) and walks its page tree.
func Open(f io.ReaderAt, size int64) (doc *Doc, err error) {
	defer func() {
		if x := recover(); x != nil {
			doc, err = nil, corrupt("malformed PDF: %v", x)
		}
	}()
	if err := checkXrefChain(f, size); err != nil {
		return nil, err
	}
	rd, err := pdf.NewReader(pdf20Compat{f}, size)
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encryption") {
			return nil, &ErrEncrypted{err}
		}
		return nil, &CorruptError{err}
	}
	doc = &Doc{rd: rd}
	if enc := rd.Trailer().Key("Encrypt"); !enc.IsNull() {
		doc.Encrypted = true
		if shortRC4(enc) {
			if rd, err = decryptShortRC4(f, size); err != nil {
				return nil, err
			}
			doc.rd = rd
		}
	}
	if err := doc.walkPages(); err != nil {
		return nil, err
	}
	if len(doc.pages) == 0 {
		return nil, corrupt("malformed PDF: no pages in the page tree")
	}
	return doc, nil
}

// NumPages is the count of page leaves present.
func (d *Doc) NumPages() int { return len(d.pages) }

// objKey names an indirect object: its number and generation. Values
// reached inside an object carry the enclosing object's key.
type objKey struct {
	id  uint32
	gen uint16
}

// valueLayout mirrors pdf.Value (a *Reader, then the object pointer
// {id uint32; gen uint16}, then the data), whose fields the library keeps
// unexported; TestValueLayout pins it against the version in go.mod. It
// is read through unsafe rather than reflect: a reflect.ValueOf(Value)
// would mark the library's *Reader as reachable through an interface,
// which keeps all its exported methods in the binary (text/template's
// dynamic method calls need them kept) even if the library did not.
type valueLayout struct {
	r    unsafe.Pointer
	ptr  objKey
	data any
}

func keyOf(v pdf.Value) (objKey, bool) {
	if unsafe.Sizeof(v) != unsafe.Sizeof(valueLayout{}) {
		return objKey{}, false
	}
	k := (*valueLayout)(unsafe.Pointer(&v)).ptr
	return k, k.id != 0
}

// walkPages collects the leaves of the page tree in order, depth first,
// refusing cycles (a node among its own ancestors or met twice) and
// trees deeper than MaxTreeDepth.
func (d *Doc) walkPages() error {
	root := d.rd.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return corrupt("malformed PDF: the catalog has no page tree (/Pages)")
	}
	seen := map[objKey]bool{}
	var walk func(node, resources, mediaBox pdf.Value, depth int) error
	walk = func(node, resources, mediaBox pdf.Value, depth int) error {
		if depth > MaxTreeDepth {
			return corrupt("malformed PDF: the page tree is nested deeper than %d levels", MaxTreeDepth)
		}
		if r := node.Key("Resources"); r.Kind() == pdf.Dict {
			resources = r
		}
		if b := node.Key("MediaBox"); b.Kind() == pdf.Array {
			mediaBox = b
		}
		kids := node.Key("Kids")
		isTree := node.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array
		if k, ok := keyOf(node); ok && isTree {
			if seen[k] {
				return corrupt("malformed PDF: the page tree has a cycle (object %d %d is its own descendant or listed twice)", k.id, k.gen)
			}
			seen[k] = true
		}
		if !isTree {
			if node.Kind() != pdf.Dict {
				return nil // a null or broken kid: no page
			}
			if len(d.pages) >= MaxPages {
				return corrupt("malformed PDF: more than %d pages", MaxPages)
			}
			d.pages = append(d.pages, leaf{node, resources, mediaBox})
			return nil
		}
		for i := 0; i < kids.Len(); i++ {
			kid := kids.Index(i)
			if err := walk(kid, resources, mediaBox, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, pdf.Value{}, pdf.Value{}, 0)
}

// pdf20Compat presents a PDF 2.0 header as 1.7 (same length, so no
// offset moves): the parser reads 2.0 files but refuses their header.
type pdf20Compat struct{ io.ReaderAt }

func (c pdf20Compat) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ReaderAt.ReadAt(p, off)
	if off == 0 && bytes.HasPrefix(p[:n], []byte("%PDF-2.0")) {
		copy(p[5:], "1.7")
	}
	return n, err
}
