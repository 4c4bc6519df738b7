package markdown

import "strings"

// splitTable turns a paragraph whose line is a delimiter row (|---|:-:|)
// with as many cells as the line before it into a table: the lines
// before the header stay a paragraph, the lines after are its rows.
func splitTable(para *Node) {
	if c := para.b.content; strings.IndexByte(c, '-') < 0 || strings.IndexByte(c, '\n') < 0 || strings.IndexAny(c, "|:") < 0 {
		return
	}
	lines := strings.Split(para.b.content, "\n")
	for i := 1; i < len(lines); i++ {
		align, ok := delimiterRow(lines[i])
		if !ok {
			continue
		}
		header := splitCells(lines[i-1])
		if len(header) != len(align) {
			continue
		}
		t := &Node{Kind: Table, Align: align}
		t.append(tableRow(header, len(align), true))
		for _, l := range lines[i+1:] {
			t.append(tableRow(splitCells(l), len(align), false))
		}
		para.insertAfter(t)
		if i == 1 {
			para.unlink()
		} else {
			para.b.content = strings.Join(lines[:i-1], "\n")
		}
		return
	}
}

// delimiterRow reads a table's delimiter row into column alignments; a
// bare --- is a setext heading or a rule, not a table.
func delimiterRow(line string) ([]Align, bool) {
	line = strings.TrimSpace(line)
	if !strings.Contains(line, "-") || (!strings.Contains(line, "|") && !strings.Contains(line, ":")) {
		return nil, false
	}
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var align []Align
	for _, c := range strings.Split(line, "|") {
		c = strings.TrimSpace(c)
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		dashes := strings.Trim(c, ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			align = append(align, AlignCenter)
		case left:
			align = append(align, AlignLeft)
		case right:
			align = append(align, AlignRight)
		default:
			align = append(align, AlignNone)
		}
	}
	return align, true
}

// splitCells cuts a row at its unescaped pipes into trimmed cells; an
// escaped pipe is a pipe in its cell, inside code spans too (GFM).
func splitCells(line string) []string {
	line = strings.Trim(line, " \t")
	if strings.HasPrefix(line, "|") {
		line = line[1:]
	}
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, "\\|") {
		line = line[:len(line)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == '|' {
			cells = append(cells, strings.Trim(cell.String(), " \t"))
			cell.Reset()
			continue
		}
		if line[i] == '\\' && i+1 < len(line) {
			if line[i+1] != '|' {
				cell.WriteByte('\\')
			}
			i++
		}
		cell.WriteByte(line[i])
	}
	return cells
}

// tableRow makes a row of exactly n cells (GFM pads and cuts).
func tableRow(cells []string, n int, header bool) *Node {
	row := &Node{Kind: TableRow, Header: header}
	for i := range n {
		c := &Node{Kind: TableCell, b: &blockState{}}
		if i < len(cells) {
			c.b.content = cells[i]
		}
		row.append(c)
	}
	return row
}
