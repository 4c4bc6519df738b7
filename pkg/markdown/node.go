// Package markdown parses CommonMark with the GitHub additions render
// reads (tables, task list items, strikethrough) into a tree of nodes.
// It builds nothing when the program starts: no regular expression, no
// table; the entity names are a switch.
package markdown

// Kind names a node.
type Kind uint8

// Block kinds, then inline kinds.
const (
	Document Kind = iota
	Paragraph
	Heading
	ThematicBreak
	CodeBlock // Fenced says which kind; Info is the fence's info string
	BlockQuote
	List
	ListItem
	HTMLBlock // Literal holds its lines; HTMLType is CommonMark's start condition 1–7
	Table
	TableRow
	TableCell

	Text // Literal, escapes and entities resolved
	SoftBreak
	HardBreak
	Emph
	Strong
	Strike
	CodeSpan // Literal
	Link     // Dest, Title; AutoLink for <…> links
	Image    // Dest, Title; children are the description
	RawHTML  // Literal
	Task     // a task list item's check box; Checked
)

// Align is a table column's alignment.
type Align uint8

// Alignments.
const (
	AlignNone Align = iota
	AlignLeft
	AlignCenter
	AlignRight
)

// Node is one node of the tree, linked to its parent, siblings and
// children.
type Node struct {
	Parent, Prev, Next    *Node
	FirstChild, LastChild *Node
	Literal               string
	Info                  string // a fence's info string
	Dest, Title           string
	Align                 []Align     // table
	b                     *blockState // while the block is parsed
	Level                 int         // heading level 1–6
	Start                 int         // ordered list
	HTMLType              int
	Kind                  Kind
	Fenced                bool
	AutoLink              bool
	Ordered, Tight        bool
	Header                bool // table row
	Checked               bool // task
	open, lastLineBlank   bool
}

func (n *Node) append(c *Node) {
	c.unlink()
	c.Parent = n
	if n.LastChild != nil {
		n.LastChild.Next = c
		c.Prev = n.LastChild
	} else {
		n.FirstChild = c
	}
	n.LastChild = c
}

func (n *Node) insertAfter(c *Node) {
	c.unlink()
	c.Next = n.Next
	if c.Next != nil {
		c.Next.Prev = c
	}
	c.Prev = n
	n.Next = c
	c.Parent = n.Parent
	if c.Parent != nil && c.Parent.LastChild == n {
		c.Parent.LastChild = c
	}
}

// insertBefore puts c before n.
func (n *Node) insertBefore(c *Node) {
	c.unlink()
	c.Prev = n.Prev
	if c.Prev != nil {
		c.Prev.Next = c
	} else if n.Parent != nil {
		n.Parent.FirstChild = c
	}
	c.Next = n
	n.Prev = c
	c.Parent = n.Parent
}

func (n *Node) unlink() {
	if n.Prev != nil {
		n.Prev.Next = n.Next
	} else if n.Parent != nil {
		n.Parent.FirstChild = n.Next
	}
	if n.Next != nil {
		n.Next.Prev = n.Prev
	} else if n.Parent != nil {
		n.Parent.LastChild = n.Prev
	}
	n.Parent, n.Prev, n.Next = nil, nil, nil
}

// IsBlock says whether the node is a block.
func (n *Node) IsBlock() bool { return n.Kind < Text }

// blockState is what parsing a block needs and its node does not keep.
type blockState struct {
	content               string // raw text of a paragraph, heading or cell until inlines are parsed
	lines                 []string
	fenceChar             byte
	fenceLen, fenceOffset int
	markerOffset, padding int
	bulletChar, delimiter byte
	startLine             int
}
