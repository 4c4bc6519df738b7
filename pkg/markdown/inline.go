package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLabel is CommonMark's limit on a link label, brackets aside.
const maxLabel = 999

// inlines parses the text of every paragraph, heading and table cell.
func (p *parser) inlines(n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		switch c.Kind {
		case Paragraph, Heading, TableCell:
			ip := inlineParser{refs: p.refs, block: c, s: strings.Trim(c.b.content, " \t\n")}
			c.b = nil
			ip.parse()
		default:
			c.b = nil
			p.inlines(c)
		}
	}
}

type delimiter struct {
	cc                byte
	num, orig         int
	node              *Node
	prev, next        *delimiter
	canOpen, canClose bool
}

type bracket struct {
	node      *Node
	prev      *bracket
	prevDelim *delimiter
	index     int
	image     bool
	active    bool
}

type backtickRun struct{ start, n int }

type inlineParser struct {
	refs     map[string]linkRef
	block    *Node
	s        string
	pos      int
	delims   *delimiter
	brackets *bracket
	// Backtick runs, found once, and for each length the next run to
	// try, so that unmatched openers do not rescan the text.
	runs     []backtickRun
	runsDone bool
	runNext  map[int]int
	// What a scan for an HTML construct's end found missing: later
	// scans from further on would not find it either.
	noEnd [4]bool
}

func (ip *inlineParser) text(s string) *Node {
	n := &Node{Kind: Text, Literal: s}
	ip.block.append(n)
	return n
}

func (ip *inlineParser) parse() {
	if it := ip.block.Parent; it != nil && it.Kind == ListItem && it.FirstChild == ip.block {
		s := ip.s
		if len(s) >= 4 && s[0] == '[' && s[2] == ']' && isSpaceOrTab(s[3]) && (s[1] == ' ' || s[1] == 'x' || s[1] == 'X') {
			ip.block.append(&Node{Kind: Task, Checked: s[1] != ' '})
			ip.pos = 3
		}
	}
	for ip.pos < len(ip.s) {
		switch c := ip.s[ip.pos]; c {
		case '\n':
			ip.newline()
		case '\\':
			ip.backslash()
		case '`':
			ip.backticks()
		case '*', '_', '~':
			ip.delimRun(c)
		case '[':
			ip.pushBracket(ip.text("["), ip.pos, false)
			ip.pos++
		case '!':
			if ip.pos+1 < len(ip.s) && ip.s[ip.pos+1] == '[' {
				ip.pushBracket(ip.text("!["), ip.pos+1, true)
				ip.pos += 2
			} else {
				ip.text("!")
				ip.pos++
			}
		case ']':
			ip.closeBracket()
		case '<':
			if !ip.autolink() && !ip.rawHTML() {
				ip.text("<")
				ip.pos++
			}
		case '&':
			if r, n := entityAt(ip.s[ip.pos:]); n > 0 {
				ip.text(r)
				ip.pos += n
			} else {
				ip.text("&")
				ip.pos++
			}
		default:
			end := ip.pos + 1
			for end < len(ip.s) && !special(ip.s[end]) {
				end++
			}
			ip.text(ip.s[ip.pos:end])
			ip.pos = end
		}
	}
	ip.processEmphasis(nil)
	capDepth(ip.block, 0)
	mergeText(ip.block)
}

// capDepth keeps inline nesting within MaxDepth: a span deeper than
// that (emphasis in emphasis in …, images in images) gives its children
// to its parent.
func capDepth(n *Node, depth int) {
	for c := n.FirstChild; c != nil; {
		next := c.Next
		if c.FirstChild == nil {
			c = next
			continue
		}
		if depth < MaxDepth {
			capDepth(c, depth+1)
			c = next
			continue
		}
		first := c.FirstChild
		for k := c.FirstChild; k != nil; {
			after := k.Next
			c.insertBefore(k)
			k = after
		}
		c.unlink()
		c = first
	}
}

func special(c byte) bool {
	switch c {
	case '\n', '\\', '`', '*', '_', '~', '[', ']', '!', '<', '&':
		return true
	}
	return false
}

// mergeText joins neighbouring text nodes, all the way down.
func mergeText(n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		if c.Kind == Text && c.Next != nil && c.Next.Kind == Text {
			var b strings.Builder
			b.WriteString(c.Literal)
			for c.Next != nil && c.Next.Kind == Text {
				b.WriteString(c.Next.Literal)
				c.Next.unlink()
			}
			c.Literal = b.String()
		}
		if c.FirstChild != nil {
			mergeText(c)
		}
	}
}

func (ip *inlineParser) skipLineStart() {
	for ip.pos < len(ip.s) && (ip.s[ip.pos] == ' ' || ip.s[ip.pos] == '\t') {
		ip.pos++
	}
}

func (ip *inlineParser) newline() {
	ip.pos++
	kind := SoftBreak
	if last := ip.block.LastChild; last != nil && last.Kind == Text {
		t := strings.TrimRight(last.Literal, " ")
		if len(last.Literal)-len(t) >= 2 {
			kind = HardBreak
		}
		last.Literal = t
	}
	ip.block.append(&Node{Kind: kind})
	ip.skipLineStart()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func (ip *inlineParser) backslash() {
	ip.pos++
	switch {
	case ip.pos < len(ip.s) && ip.s[ip.pos] == '\n':
		ip.pos++
		ip.block.append(&Node{Kind: HardBreak})
		ip.skipLineStart()
	case ip.pos < len(ip.s) && isASCIIPunct(ip.s[ip.pos]):
		ip.text(ip.s[ip.pos : ip.pos+1])
		ip.pos++
	default:
		ip.text("\\")
	}
}

func (ip *inlineParser) backticks() {
	start := ip.pos
	n := fenceRun(ip.s[start:], '`')
	after := start + n
	if !ip.runsDone {
		ip.runsDone = true
		for i := 0; i < len(ip.s); {
			if ip.s[i] != '`' {
				i++
				continue
			}
			k := fenceRun(ip.s[i:], '`')
			ip.runs = append(ip.runs, backtickRun{i, k})
			i += k
		}
		ip.runNext = map[int]int{}
	}
	for i := ip.runNext[n]; i < len(ip.runs); i++ {
		r := ip.runs[i]
		if r.n != n || r.start < after {
			continue
		}
		ip.runNext[n] = i + 1
		code := strings.ReplaceAll(ip.s[after:r.start], "\n", " ")
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		ip.block.append(&Node{Kind: CodeSpan, Literal: code})
		ip.pos = r.start + n
		return
	}
	ip.runNext[n] = len(ip.runs)
	ip.text(ip.s[start:after])
	ip.pos = after
}

func runeBefore(s string, i int) rune {
	if i == 0 {
		return '\n'
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

func runeAt(s string, i int) rune {
	if i >= len(s) {
		return '\n'
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func (ip *inlineParser) delimRun(c byte) {
	start := ip.pos
	n := fenceRun(ip.s[start:], c)
	ip.pos += n
	node := ip.text(ip.s[start:ip.pos])
	if c == '~' && n > 2 {
		return // GitHub strikes with one or two tildes
	}
	before, after := runeBefore(ip.s, start), runeAt(ip.s, ip.pos)
	bSpace, aSpace := unicode.IsSpace(before), unicode.IsSpace(after)
	bPunct, aPunct := isPunct(before), isPunct(after)
	left := !aSpace && (!aPunct || bSpace || bPunct)
	right := !bSpace && (!bPunct || aSpace || aPunct)
	canOpen, canClose := left, right
	if c == '_' {
		canOpen = left && (!right || bPunct)
		canClose = right && (!left || aPunct)
	}
	if !canOpen && !canClose {
		return
	}
	d := &delimiter{cc: c, num: n, orig: n, node: node, prev: ip.delims, canOpen: canOpen, canClose: canClose}
	if d.prev != nil {
		d.prev.next = d
	}
	ip.delims = d
}

func (ip *inlineParser) removeDelim(d *delimiter) {
	if d.prev != nil {
		d.prev.next = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		ip.delims = d.prev
	}
}

func (ip *inlineParser) processEmphasis(bottom *delimiter) {
	// The lowest opener worth a look, by closer character, whether it
	// can open too, and length mod 3 (strikes: length).
	var openersBottom [18]*delimiter
	var seen [18]bool
	slot := func(d *delimiter) int {
		i := 0
		switch d.cc {
		case '_':
			i = 6
		case '~':
			i = 12
		}
		if d.canOpen {
			i += 3
		}
		return i + d.orig%3
	}
	var closer *delimiter
	for d := ip.delims; d != nil && d != bottom; d = d.prev {
		closer = d
	}
	for closer != nil {
		if !closer.canClose {
			closer = closer.next
			continue
		}
		k := slot(closer)
		ob := bottom
		if seen[k] {
			ob = openersBottom[k]
		}
		opener := closer.prev
		found := false
		for opener != nil && opener != bottom && opener != ob {
			if opener.cc == closer.cc && opener.canOpen {
				if closer.cc == '~' {
					found = opener.orig == closer.orig
				} else {
					odd := (closer.canOpen || opener.canClose) && closer.orig%3 != 0 && (opener.orig+closer.orig)%3 == 0
					found = !odd
				}
				if found {
					break
				}
			}
			opener = opener.prev
		}
		if !found {
			openersBottom[k], seen[k] = closer.prev, true
			next := closer.next
			if !closer.canOpen {
				ip.removeDelim(closer)
			}
			closer = next
			continue
		}
		use := 1
		kind := Emph
		switch {
		case closer.cc == '~':
			use, kind = closer.num, Strike
		case closer.num >= 2 && opener.num >= 2:
			use, kind = 2, Strong
		}
		on, cn := opener.node, closer.node
		opener.num -= use
		closer.num -= use
		on.Literal = on.Literal[:len(on.Literal)-use]
		cn.Literal = cn.Literal[:len(cn.Literal)-use]
		e := &Node{Kind: kind}
		for t := on.Next; t != nil && t != cn; {
			next := t.Next
			e.append(t)
			t = next
		}
		on.insertAfter(e)
		// The delimiters between opener and closer are spent.
		for d := closer.prev; d != nil && d != opener; {
			prev := d.prev
			ip.removeDelim(d)
			d = prev
		}
		if opener.num == 0 {
			on.unlink()
			ip.removeDelim(opener)
		}
		if closer.num == 0 {
			next := closer.next
			cn.unlink()
			ip.removeDelim(closer)
			closer = next
		}
	}
	for ip.delims != nil && ip.delims != bottom {
		ip.removeDelim(ip.delims)
	}
}

func (ip *inlineParser) pushBracket(n *Node, index int, image bool) {
	ip.brackets = &bracket{node: n, prev: ip.brackets, prevDelim: ip.delims, index: index, image: image, active: true}
}

func (ip *inlineParser) closeBracket() {
	ip.pos++
	startpos := ip.pos
	opener := ip.brackets
	if opener == nil {
		ip.text("]")
		return
	}
	if !opener.active {
		ip.brackets = opener.prev
		ip.text("]")
		return
	}
	dest, title, ok := "", "", false
	if ip.pos < len(ip.s) && ip.s[ip.pos] == '(' {
		ip.pos++
		ip.pos = skipSpnl(ip.s, ip.pos)
		if d, end, good := linkDestination(ip.s, ip.pos, true); good {
			ip.pos = end
			dest = d
			before := ip.pos
			ip.pos = skipSpnl(ip.s, ip.pos)
			if ip.pos > before {
				if t, end, good := linkTitle(ip.s, ip.pos); good {
					title = t
					ip.pos = skipSpnl(ip.s, end)
				}
			}
			if ip.pos < len(ip.s) && ip.s[ip.pos] == ')' {
				ip.pos++
				ok = true
			}
		}
		if !ok {
			ip.pos = startpos
		}
	}
	if !ok && ip.refs != nil {
		label := ""
		if n := linkLabel(ip.s, ip.pos); n > 2 {
			label = ip.s[ip.pos : ip.pos+n]
			ip.pos += n
		} else {
			if n == 2 {
				ip.pos += n
			}
			if startpos-opener.index-2 <= maxLabel {
				label = ip.s[opener.index:startpos]
			}
		}
		if ref, found := ip.refs[normalizeLabel(label)]; found && label != "" {
			dest, title, ok = ref.dest, ref.title, true
		} else {
			ip.pos = startpos
		}
	}
	if !ok {
		ip.brackets = opener.prev
		ip.text("]")
		return
	}
	kind := Link
	if opener.image {
		kind = Image
	}
	l := &Node{Kind: kind, Dest: dest, Title: title}
	for t := opener.node.Next; t != nil; {
		next := t.Next
		l.append(t)
		t = next
	}
	ip.block.append(l)
	ip.processEmphasis(opener.prevDelim)
	opener.node.unlink()
	ip.brackets = opener.prev
	if !opener.image {
		for b := ip.brackets; b != nil; b = b.prev {
			if !b.image {
				b.active = false
			}
		}
	}
}

func skipSpnl(s string, i int) int {
	for i < len(s) && isSpaceOrTab(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '\n' {
		i++
		for i < len(s) && isSpaceOrTab(s[i]) {
			i++
		}
	}
	return i
}

// linkDestination reads <…> or a run without spaces whose parentheses
// balance; emptyOK allows the empty run of an inline link.
func linkDestination(s string, i int, emptyOK bool) (string, int, bool) {
	if i < len(s) && s[i] == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				if j+1 < len(s) && isASCIIPunct(s[j+1]) {
					j++
				}
			case '\n', '<':
				return "", 0, false
			case '>':
				return unescapeString(s[i+1 : j]), j + 1, true
			}
		}
		return "", 0, false
	}
	depth, j := 0, i
loop:
	for ; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]):
			j++
		case c == '(':
			depth++
			if depth > 32 {
				return "", 0, false
			}
		case c == ')':
			if depth == 0 {
				break loop
			}
			depth--
		case c <= ' ' || c == 0x7f:
			break loop
		}
	}
	if depth != 0 || (j == i && !(emptyOK && j < len(s) && s[j] == ')')) {
		return "", 0, false
	}
	return unescapeString(s[i:j]), j, true
}

func linkTitle(s string, i int) (string, int, bool) {
	if i >= len(s) {
		return "", 0, false
	}
	closing := s[i]
	switch closing {
	case '"', '\'':
	case '(':
		closing = ')'
	default:
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]):
			j++
		case c == closing:
			return unescapeString(s[i+1 : j]), j + 1, true
		case c == '(' && closing == ')':
			return "", 0, false
		}
	}
	return "", 0, false
}

// linkLabel is the length of the [label] at i, brackets included, or 0.
func linkLabel(s string, i int) int {
	if i >= len(s) || s[i] != '[' {
		return 0
	}
	for j := i + 1; j < len(s) && j-i-1 <= maxLabel; j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '[':
			return 0
		case ']':
			if j-i-1 > maxLabel {
				return 0
			}
			return j - i + 1
		}
	}
	return 0
}

// normalizeLabel is the key a reference is found by: brackets off,
// white space collapsed, case folded.
func normalizeLabel(label string) string {
	label = strings.TrimPrefix(strings.TrimSuffix(label, "]"), "[")
	return strings.ToLower(strings.ToUpper(strings.Join(strings.Fields(label), " ")))
}

func (ip *inlineParser) autolink() bool {
	s, i := ip.s, ip.pos+1
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '+' || s[j] == '.' || s[j] == '-') {
		j++
	}
	if n := j - i; n >= 2 && n <= 32 && isLetter(s[i]) && j < len(s) && s[j] == ':' {
		for k := j + 1; k < len(s); k++ {
			c := s[k]
			if c == '>' {
				u := s[i:k]
				ip.block.appendNode(&Node{Kind: Link, Dest: u, AutoLink: true}).append(&Node{Kind: Text, Literal: u})
				ip.pos = k + 1
				return true
			}
			if c <= ' ' || c == '<' || c == 0x7f {
				break
			}
		}
	}
	if end := emailEnd(s, i); end > 0 {
		addr := s[i:end]
		ip.block.appendNode(&Node{Kind: Link, Dest: "mailto:" + addr, AutoLink: true}).append(&Node{Kind: Text, Literal: addr})
		ip.pos = end + 1
		return true
	}
	return false
}

// appendNode adds c to n and returns c.
func (n *Node) appendNode(c *Node) *Node {
	n.append(c)
	return c
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

// emailEnd is where the address at i ends, at its '>', or 0.
func emailEnd(s string, i int) int {
	j := i
	for j < len(s) && (isAlnum(s[j]) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", s[j]) >= 0) {
		j++
	}
	if j == i || j >= len(s) || s[j] != '@' {
		return 0
	}
	j++
	for {
		k := j
		for k < len(s) && k-j < 63 && (isAlnum(s[k]) || (s[k] == '-' && k > j)) {
			k++
		}
		if k == j || s[k-1] == '-' || k >= len(s) {
			return 0
		}
		switch s[k] {
		case '>':
			return k
		case '.':
			j = k + 1
		default:
			return 0
		}
	}
}

func (ip *inlineParser) rawHTML() bool {
	end := ip.htmlEnd(ip.s, ip.pos)
	if end < 0 {
		return false
	}
	ip.block.append(&Node{Kind: RawHTML, Literal: ip.s[ip.pos:end]})
	ip.pos = end
	return true
}

// htmlEnd is where the inline HTML at i ends, or -1.
func (ip *inlineParser) htmlEnd(s string, i int) int {
	rest := s[i:]
	find := func(slot int, from int, closer string) int {
		if ip.noEnd[slot] {
			return -1
		}
		k := strings.Index(s[from:], closer)
		if k < 0 {
			ip.noEnd[slot] = true
			return -1
		}
		return from + k + len(closer)
	}
	switch {
	case strings.HasPrefix(rest, "<!-->"):
		return i + 5
	case strings.HasPrefix(rest, "<!--->"):
		return i + 6
	case strings.HasPrefix(rest, "<!--"):
		return find(0, i+4, "-->")
	case strings.HasPrefix(rest, "<?"):
		return find(1, i+2, "?>")
	case strings.HasPrefix(rest, "<![CDATA["):
		return find(2, i+9, "]]>")
	case len(rest) > 2 && rest[1] == '!' && isLetter(rest[2]):
		return find(3, i+2, ">")
	case len(rest) > 2 && rest[1] == '/':
		j := tagName(s, i+2)
		if j < 0 {
			return -1
		}
		j = skipHTMLSpace(s, j)
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		return -1
	}
	return openTagEnd(s, i)
}
