package office

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// startTag is an element's start: its local name and attributes (keyed
// by local name: the parts read here use no two attributes of one local
// name on an element).
type startTag struct {
	local string
	attrs []xml.Attr
}

func (t startTag) attr(local string) string {
	for _, a := range t.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// relID is the r:id attribute, a relationship's id (an element may also
// have a plain id, as a slide's sldId does).
func (t startTag) relID() string {
	for _, a := range t.attrs {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}

// decoder is the state of one part's walk.
type decoder struct {
	// stack holds the local names of the open elements.
	stack []string
}

// in reports whether an element of that local name is open.
func (d *decoder) in(local string) bool {
	for i := len(d.stack) - 1; i >= 0; i-- {
		if d.stack[i] == local {
			return true
		}
	}
	return false
}

// parent is the local name of the element enclosing the current one.
func (d *decoder) parent() string {
	if len(d.stack) < 2 {
		return ""
	}
	return d.stack[len(d.stack)-2]
}

type (
	startFunc func(d *decoder, t startTag) error
	endFunc   func(d *decoder, local string) error
	textFunc  func(d *decoder, text []byte) error
)

// walk streams the part's elements to the callbacks (any may be nil).
// Namespaces are not resolved: the formats read here name their elements
// uniquely enough by local name, and raw tokens are much cheaper.
func (p *pkg) walk(part string, start startFunc, end endFunc, text textFunc) error {
	rc, err := p.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	return walkXML(part, rc, start, end, text)
}

func walkXML(part string, r io.Reader, start startFunc, end endFunc, text textFunc) error {
	dec := xml.NewDecoder(r)
	d := &decoder{}
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			if len(d.stack) > 0 {
				return &PartError{Part: part, Err: fmt.Errorf("XML ends inside <%s>", d.stack[len(d.stack)-1])}
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return &PartError{Part: part, Err: fmt.Errorf("malformed XML: %v", se)}
			}
			var pe *PartError
			var te *TooLargeError
			if errors.As(err, &pe) || errors.As(err, &te) {
				return err
			}
			return &PartError{Part: part, Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(d.stack) >= MaxXMLDepth {
				return &PartError{Part: part, Err: fmt.Errorf("XML nested deeper than %d elements", MaxXMLDepth)}
			}
			d.stack = append(d.stack, t.Name.Local)
			if start != nil {
				if err := start(d, startTag{local: t.Name.Local, attrs: t.Attr}); err != nil {
					return err
				}
			}
		case xml.EndElement:
			if len(d.stack) == 0 || d.stack[len(d.stack)-1] != t.Name.Local {
				return &PartError{Part: part, Err: fmt.Errorf("malformed XML: unexpected </%s>", t.Name.Local)}
			}
			if end != nil {
				if err := end(d, t.Name.Local); err != nil {
					return err
				}
			}
			d.stack = d.stack[:len(d.stack)-1]
		case xml.CharData:
			if text != nil && len(d.stack) > 0 {
				if err := text(d, t); err != nil {
					return err
				}
			}
		}
	}
}

// mdWriter builds Markdown with a size check.
type mdWriter struct {
	strings.Builder
	inList bool
}

func (w *mdWriter) check() error {
	if w.Len() > MaxMarkdownBytes {
		return &TooLargeError{What: "the Markdown of the document", Limit: MaxMarkdownBytes}
	}
	return nil
}

// block writes a block (paragraph, heading, table) separated by a blank
// line from the one before.
func (w *mdWriter) block(s string) {
	s = strings.TrimRight(s, " \n")
	if strings.TrimSpace(s) == "" {
		return
	}
	if w.Len() > 0 {
		w.WriteString("\n")
	}
	w.WriteString(s)
	w.WriteString("\n")
	w.inList = false
}

// listItem writes one item of a list: consecutive items are not
// separated by blank lines.
func (w *mdWriter) listItem(level int, ordered bool, n int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if w.Len() > 0 && !w.inList {
		w.WriteString("\n")
	}
	w.inList = true
	w.WriteString(strings.Repeat("  ", min(level, 8)))
	if ordered {
		fmt.Fprintf(w, "%d. ", n)
	} else {
		w.WriteString("- ")
	}
	w.WriteString(strings.ReplaceAll(text, "\n", " "))
	w.WriteString("\n")
}

// Table renders rows as a GFM table, the first row as its header (for
// the other converters of documents to Markdown).
func Table(rows [][]string) string { return table(rows) }

// table renders rows as a GFM table, the first row as its header; rows
// are padded to the widest.
func table(rows [][]string) string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if len(rows) == 0 || width == 0 {
		return ""
	}
	var b strings.Builder
	line := func(r []string) {
		b.WriteString("|")
		for i := 0; i < width; i++ {
			cell := ""
			if i < len(r) {
				cell = cellText(r[i])
			}
			b.WriteString(" ")
			b.WriteString(cell)
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|")
	for i := 0; i < width; i++ {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range rows[1:] {
		line(r)
	}
	return b.String()
}

// cellText makes text safe inside a table cell: one line, pipes escaped.
func cellText(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "<br>")
}

// Bounds on what one paragraph and one table may hold in memory before
// they are written out (a part of tiny runs or empty cells could
// otherwise grow far past its own size).
const (
	MaxRunsPerParagraph = 100_000
	MaxTableCells       = 1_000_000
)

// addRun appends a run to a paragraph, refusing paragraphs of more than
// MaxRunsPerParagraph runs.
func addRun(runs []span, r span, part string) ([]span, error) {
	if len(runs) >= MaxRunsPerParagraph {
		return runs, &TooLargeError{What: fmt.Sprintf("a paragraph of %s (over %d runs)", part, MaxRunsPerParagraph), Limit: MaxMarkdownBytes}
	}
	return append(runs, r), nil
}

// span is a run of text with its emphasis, joined into Markdown by
// inline.
type span struct {
	text          string
	bold, italic  bool
	strike        bool
	link          string
	code          bool
	breakAfterRun bool
}

// inline joins runs, merging neighbours of the same emphasis so that
// "**a****b**" comes out as "**ab**", and keeping the spaces at a run's
// edges outside its markers (CommonMark does not open "** a**").
func inline(runs []span) string {
	var merged []span
	for _, r := range runs {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.bold == r.bold && last.italic == r.italic && last.strike == r.strike && last.link == r.link && last.code == r.code {
				last.text += r.text
				continue
			}
		}
		merged = append(merged, r)
	}
	var b strings.Builder
	for _, r := range merged {
		text := r.text
		if strings.TrimSpace(text) == "" {
			b.WriteString(text)
			continue
		}
		lead := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		trail := text[len(strings.TrimRight(text, " \t")):]
		core := strings.TrimSpace(text)
		if !r.code {
			core = escapeInline(core)
		}
		open, close := "", ""
		if r.code {
			open, close = "`", "`"
		}
		if r.strike {
			open, close = "~~"+open, close+"~~"
		}
		if r.italic {
			open, close = "*"+open, close+"*"
		}
		if r.bold {
			open, close = "**"+open, close+"**"
		}
		core = open + core + close
		if r.link != "" {
			core = "[" + core + "](" + r.link + ")"
		}
		b.WriteString(lead + core + trail)
	}
	return b.String()
}

// escapeInline escapes the characters that would otherwise start
// emphasis or code inside document text; the rest stays as written, for
// a model reads it (a path's backslashes, a snake_case name).
var inlineEscaper = strings.NewReplacer("*", `\*`, "`", "\\`")

func escapeInline(s string) string {
	if !strings.ContainsAny(s, "*`") {
		return s
	}
	return inlineEscaper.Replace(s)
}
