package markdown

// parseLinkRef reads the link reference definition that starts s:
// [label]: destination "title", and returns how much of s it took.
func parseLinkRef(s string) (int, string, linkRef, bool) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	n := linkLabel(s, i)
	if n == 0 || i+n >= len(s) || s[i+n] != ':' {
		return 0, "", linkRef{}, false
	}
	label := normalizeLabel(s[i : i+n])
	if label == "" {
		return 0, "", linkRef{}, false
	}
	i = skipSpnl(s, i+n+1)
	dest, end, ok := linkDestination(s, i, false)
	if !ok {
		return 0, "", linkRef{}, false
	}
	i = end
	beforeTitle := i
	j := skipSpnl(s, i)
	title := ""
	if j > i {
		if t, e, ok := linkTitle(s, j); ok {
			title, i = t, e
		}
	}
	if k, ok := lineEnd(s, i); ok {
		return k, label, linkRef{dest, title}, true
	}
	if i != beforeTitle {
		// Junk after the title: the definition may still end with its
		// destination, and the title's line is text.
		if k, ok := lineEnd(s, beforeTitle); ok {
			return k, label, linkRef{dest: dest}, true
		}
	}
	return 0, "", linkRef{}, false
}

// lineEnd skips spaces to the end of the line at i and past it.
func lineEnd(s string, i int) (int, bool) {
	for i < len(s) && isSpaceOrTab(s[i]) {
		i++
	}
	if i == len(s) {
		return i, true
	}
	if s[i] == '\n' {
		return i + 1, true
	}
	return 0, false
}
