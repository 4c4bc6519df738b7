package office

import (
	"fmt"
	"strconv"
	"strings"
)

func (p *pkg) pptx(doc *Document) error {
	doc.Unit = "slide"
	main := "ppt/presentation.xml"
	if ct, err := p.contentTypeMain("presentationml.presentation.main"); err == nil && ct != "" {
		main = ct
	}
	rels, err := p.rels(main)
	if err != nil {
		return err
	}
	var slides []string
	err = p.walk(main, func(d *decoder, t startTag) error {
		if t.local == "sldId" {
			slides = append(slides, rels[t.relID()])
		}
		return nil
	}, nil, nil)
	if err != nil {
		return err
	}
	for i, part := range slides {
		n := i + 1
		if part == "" || !p.has(part) {
			return &PartError{Part: main, Err: fmt.Errorf("slide %d names a part that is not in the archive", n)}
		}
		title, body, err := p.slideText(part, false)
		if err != nil {
			return err
		}
		srels, err := p.rels(part)
		if err != nil {
			return err
		}
		notes := ""
		for _, target := range srels {
			// One fixed step from a slide to its notes; the notes' own
			// relationships (back to the slide) are never followed.
			if strings.Contains(target, "notesSlide") && p.has(target) {
				if _, notes, err = p.slideText(target, true); err != nil {
					return err
				}
			}
		}
		var b mdWriter
		head := fmt.Sprintf("## Slide %d", n)
		if title != "" {
			head += ": " + title
		}
		b.block(head)
		if body != "" {
			b.block(body)
		}
		if notes != "" {
			b.block("Notes:\n\n" + notes)
		}
		doc.Parts = append(doc.Parts, Part{Title: title, Markdown: b.String()})
	}
	return nil
}

// slideText reads a slide's title (its title placeholder) and the rest
// as Markdown: paragraphs, bullets by level, tables. In a notes slide
// only the notes' body placeholder counts (the rest is the slide image
// and the page number).
func (p *pkg) slideText(part string, notes bool) (title, body string, err error) {
	var (
		w         mdWriter
		titles    []string
		shapeKind string // placeholder type of the current shape
		para      []span
		run       span
		level     int
		bulleted  bool
		noBullet  bool
		tables    []*tableBuilder
		paras     []string // paragraphs of the current shape
		link      string
	)
	keep := func() bool {
		if notes {
			return shapeKind == "body"
		}
		return true
	}
	rels := map[string]string{}
	if r, err := p.rels(part); err == nil {
		rels = r
	}
	start := func(d *decoder, t startTag) (err error) {
		switch t.local {
		case "sp":
			shapeKind, paras = "", nil
		case "ph":
			shapeKind = t.attr("type")
			if shapeKind == "" {
				shapeKind = "body"
			}
		case "p":
			if d.in("txBody") {
				para, level, bulleted, noBullet = nil, 0, false, false
			}
		case "pPr":
			if l, err := strconv.Atoi(t.attr("lvl")); err == nil {
				level = l
			}
		case "buChar", "buAutoNum":
			bulleted = true
		case "buNone":
			noBullet = true
		case "r", "fld":
			run = span{link: link}
		case "rPr":
			if d.in("r") {
				run.bold = t.attr("b") == "1" || t.attr("b") == "true"
				run.italic = t.attr("i") == "1" || t.attr("i") == "true"
				run.strike = strings.HasSuffix(t.attr("strike"), "Strike") && t.attr("strike") != "noStrike"
			}
		case "hlinkClick":
			if d.in("rPr") {
				run.link = rels[t.relID()]
			}
		case "br":
			para, err = addRun(para, span{text: "\n"}, part)
			return err
		case "tbl":
			tables = append(tables, &tableBuilder{})
		case "tr":
			if n := len(tables); n > 0 {
				tables[n-1].row()
			}
		case "tc":
			if n := len(tables); n > 0 {
				tables[n-1].cell()
				return tables[n-1].check(part)
			}
		}
		return nil
	}
	text := func(d *decoder, b []byte) (err error) {
		if d.stack[len(d.stack)-1] == "t" && (d.in("r") || d.in("fld")) {
			r := run
			r.text = string(b)
			para, err = addRun(para, r, part)
			return err
		}
		return nil
	}
	end := func(d *decoder, local string) error {
		switch local {
		case "p":
			if !d.in("txBody") {
				return nil
			}
			s := strings.TrimSpace(inline(para))
			para = nil
			if s == "" {
				return nil
			}
			if n := len(tables); n > 0 && d.in("tc") {
				tables[n-1].add(s)
				return nil
			}
			if !keep() {
				return nil
			}
			if shapeKind == "title" || shapeKind == "ctrTitle" {
				titles = append(titles, strings.ReplaceAll(s, "\n", " "))
				return nil
			}
			// Body placeholders are bulleted by the slide master unless
			// a paragraph says buNone.
			if bulleted || level > 0 || (!notes && !noBullet && (shapeKind == "body" || shapeKind == "obj")) {
				s = strings.Repeat("  ", min(level, 8)) + "- " + strings.ReplaceAll(s, "\n", " ")
			}
			paras = append(paras, s)
		case "txBody":
			if len(paras) > 0 && len(tables) == 0 {
				// One shape's paragraphs stay together; bullets in a row
				// make one list.
				w.block(joinParas(paras))
				paras = nil
			}
		case "tbl":
			n := len(tables)
			if n == 0 {
				return nil
			}
			t := tables[n-1]
			tables = tables[:n-1]
			if keep() {
				w.block(table(t.done()))
			}
		}
		return w.check()
	}
	if err := p.walk(part, start, end, text); err != nil {
		return "", "", err
	}
	return strings.Join(titles, " "), strings.TrimSpace(w.String()), nil
}

// joinParas joins a shape's paragraphs: list items on consecutive lines,
// other paragraphs separated by a blank line.
func joinParas(paras []string) string {
	var b strings.Builder
	for i, s := range paras {
		if i > 0 {
			item := strings.HasPrefix(strings.TrimLeft(s, " "), "- ")
			prevItem := strings.HasPrefix(strings.TrimLeft(paras[i-1], " "), "- ")
			if item && prevItem {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(s)
	}
	return b.String()
}
