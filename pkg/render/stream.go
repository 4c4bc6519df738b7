package render

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"
)

// maxReferences bounds the link reference definitions a document keeps
// ([label]: url); later ones are ignored, with a warning.
const maxReferences = 1 << 16

// docStream reads a Markdown document's top-level blocks a chunk at a
// time (see chunk.go): a writer takes them one by one with Next, and may
// Mark a place and Reset to it to read blocks again (a table's rows to
// size its columns, then to draw them). A block that goes on with the one
// before it (Block.Cont) holds more items of its list or more rows of its
// table.
type docStream struct {
	ctx    context.Context
	src    io.ReaderAt
	size   int64
	meta   map[string]any
	chunks []chunk
	tails  []chunkTail
	refs   map[string]parser.Reference // the body's link reference definitions, nil when it has none
	conv   converter
	cur    int // the chunk loaded, -1 before the first
	blocks []Block
	pos    int
}

// chunkTail is how a chunk's last block ends, for the next chunk's first
// block to go on with it.
type chunkTail struct {
	kind    BlockKind
	ordered bool
	next    int // a list's next item number
	ok      bool
}

// streamMark is a place in a docStream.
type streamMark struct{ chunk, pos int }

// frontMatterError is front matter that is not YAML.
type frontMatterError struct{ err error }

func (e *frontMatterError) Error() string {
	return fmt.Sprintf("front matter is not valid YAML: %v", e.err)
}

// badEncoding is the error of a source that is not UTF-8 text.
var badEncoding = fmt.Errorf("not UTF-8 text")

// openStream reads a document's front matter and finds its chunks; the
// body is parsed as the blocks are asked for. A source that is not UTF-8
// is badEncoding; bad front matter is an error saying so.
func openStream(ctx context.Context, src io.ReaderAt, size int64) (*docStream, error) {
	meta, body, err := readFrontMatter(src, size)
	if err != nil {
		return nil, err
	}
	chunks, refs, ok, err := scanChunks(src, body, size)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, badEncoding
	}
	s := &docStream{ctx: ctx, src: src, size: size, meta: meta, chunks: chunks, tails: make([]chunkTail, len(chunks)), cur: -1}
	if refs {
		if err := s.collectReferences(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readFrontMatter reads a leading YAML block (--- … --- or …) and says
// where the body starts; without a closing line the --- is a thematic
// break, not front matter.
func readFrontMatter(src io.ReaderAt, size int64) (map[string]any, int64, error) {
	start := int64(0)
	var bom [3]byte
	if n, _ := src.ReadAt(bom[:], 0); n == 3 && string(bom[:]) == "\ufeff" {
		start = 3
	}
	r := bufio.NewReader(io.NewSectionReader(src, start, size-start))
	first, err := r.ReadSlice('\n')
	if err != nil || string(bytes.TrimRight(first, " \t\r\n")) != "---" {
		return nil, start, nil
	}
	off := start + int64(len(first))
	var yml []byte
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return nil, start, nil // no closing line
		}
		off += int64(len(line))
		if l := string(bytes.TrimRight(line, " \t\r\n")); l == "---" || l == "..." {
			meta := map[string]any{}
			if err := yaml.Unmarshal(yml, &meta); err != nil {
				return nil, 0, &frontMatterError{err}
			}
			return meta, off, nil
		}
		yml = append(yml, line...)
		if err != nil {
			return nil, start, nil
		}
	}
}

// collectReferences parses every chunk once for its link reference
// definitions: a link may use a definition further on, in a chunk not
// parsed yet. The first definition of a label wins, as in CommonMark.
func (s *docStream) collectReferences() error {
	s.refs = map[string]parser.Reference{}
	warned := false
	for k := range s.chunks {
		body, err := s.chunkText(k)
		if err != nil {
			return err
		}
		pc := parser.NewContext()
		if _, err := parseWithContext(s.ctx, refParser(), body, pc); err != nil {
			return err
		}
		var list []parser.Reference
		for _, ref := range pc.References() {
			list = append(list, ref)
		}
		// pc holds one definition a label; the order among labels does
		// not matter.
		for _, ref := range list {
			key := util.ToLinkReference(ref.Label())
			if _, ok := s.refs[key]; ok {
				continue
			}
			if len(s.refs) >= maxReferences {
				if !warned {
					s.conv.warnings = append(s.conv.warnings, fmt.Sprintf("more than %d link reference definitions: the rest are ignored", maxReferences))
					warned = true
				}
				continue
			}
			// Copies: the reference would hold the chunk's text alive.
			s.refs[key] = parser.NewReference(bytes.Clone(ref.Label()), bytes.Clone(ref.Destination()), bytes.Clone(ref.Title()))
		}
	}
	return nil
}

// chunkText is chunk k's text, ready for the parser.
func (s *docStream) chunkText(k int) ([]byte, error) {
	ch := s.chunks[k]
	data := make([]byte, len(ch.prefix)+int(ch.end-ch.start))
	copy(data, ch.prefix)
	if _, err := s.src.ReadAt(data[len(ch.prefix):], ch.start); err != nil && err != io.EOF {
		return nil, err
	}
	return capNesting(normalizeInput(data)), nil
}

// load parses chunk k into blocks.
func (s *docStream) load(k int) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	body, err := s.chunkText(k)
	if err != nil {
		return err
	}
	var pc parser.Context = parser.NewContext()
	if s.refs != nil {
		pc = sharedRefs{pc, s.refs}
	}
	root, err := parseWithContext(s.ctx, markdownParser(), body, pc)
	if err != nil {
		return err
	}
	s.conv.src = body
	blocks := s.conv.blocks(root, 0)
	s.conv.src = nil
	if len(blocks) > 0 && s.chunks[k].cont && k > 0 {
		prev, first := s.tails[k-1], &blocks[0]
		switch {
		case !prev.ok:
		case first.Kind == List && prev.kind == List && first.Ordered == prev.ordered:
			first.Cont, first.Start = true, prev.next
		case first.Kind == Table && prev.kind == Table:
			first.Cont = true
		}
	}
	tail := chunkTail{}
	if n := len(blocks); n > 0 {
		last := blocks[n-1]
		tail = chunkTail{kind: last.Kind, ordered: last.Ordered, next: last.Start + len(last.Items), ok: true}
	}
	s.tails[k] = tail
	s.cur, s.blocks, s.pos = k, blocks, 0
	return nil
}

// Next is the next top-level block, io.EOF after the last.
func (s *docStream) Next() (Block, error) {
	b, err := s.Peek()
	if err == nil {
		s.pos++
	}
	return b, err
}

// Peek is the next block without taking it.
func (s *docStream) Peek() (Block, error) {
	for s.pos >= len(s.blocks) {
		if s.cur+1 >= len(s.chunks) {
			return Block{}, io.EOF
		}
		if err := s.load(s.cur + 1); err != nil {
			return Block{}, err
		}
	}
	return s.blocks[s.pos], nil
}

// NextCont takes the next block if it goes on with one of kind.
func (s *docStream) NextCont(kind BlockKind) (Block, bool, error) {
	b, err := s.Peek()
	if err == io.EOF || (err == nil && (!b.Cont || b.Kind != kind)) {
		return Block{}, false, nil
	}
	if err != nil {
		return Block{}, false, err
	}
	s.pos++
	return b, true, nil
}

// Mark is the place of the next block.
func (s *docStream) Mark() streamMark { return streamMark{s.cur, s.pos} }

// Reset goes back (or on) to a mark: Next gives the same blocks again.
func (s *docStream) Reset(m streamMark) error {
	if m.chunk != s.cur {
		if m.chunk < 0 {
			s.cur, s.blocks = -1, nil
		} else if err := s.load(m.chunk); err != nil {
			return err
		}
	}
	s.pos = m.pos
	return nil
}

// Warnings say what the model dropped (raw HTML) so far.
func (s *docStream) Warnings() []string { return s.conv.warnings }

// MetaString is a front-matter value as text, or "".
func (s *docStream) MetaString(key string) string { return (&Doc{Meta: s.meta}).MetaString(key) }

// Title is the front matter's title, else the first heading's text (read
// ahead, then back).
func (s *docStream) Title() (string, error) {
	if t := s.MetaString("title"); t != "" {
		return t, nil
	}
	m := s.Mark()
	defer s.Reset(m)
	if err := s.Reset(streamMark{-1, 0}); err != nil {
		return "", err
	}
	for {
		b, err := s.Next()
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if b.Kind == Heading {
			return PlainText(b.Runs), nil
		}
	}
}

// sharedRefs is a parser context that knows the link reference
// definitions of the whole document.
type sharedRefs struct {
	parser.Context
	refs map[string]parser.Reference
}

func (c sharedRefs) Reference(label string) (parser.Reference, bool) {
	if r, ok := c.refs[label]; ok {
		return r, true
	}
	return c.Context.Reference(label)
}

// parseWithContext parses src, or gives up when ctx ends: goldmark takes
// no context, and some hostile sources (brackets nested thousands deep)
// take it minutes. The abandoned parse runs on to its end in the
// background.
func parseWithContext(ctx context.Context, p parser.Parser, src []byte, pc parser.Context) (ast.Node, error) {
	done := make(chan ast.Node, 1)
	go func() { done <- p.Parse(text.NewReader(src), parser.WithContext(pc)) }()
	select {
	case n := <-done:
		return n, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// collect reads a whole stream into a Doc, joining the blocks that go
// on with the one before.
func (s *docStream) collect() (*Doc, error) {
	d := &Doc{Meta: s.meta}
	for {
		b, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n := len(d.Blocks); b.Cont && n > 0 {
			last := &d.Blocks[n-1]
			if b.Kind == List {
				last.Items = append(last.Items, b.Items...)
				continue
			}
			if b.Kind == Table {
				last.Table.Rows = append(last.Table.Rows, b.Table.Rows...)
				continue
			}
		}
		b.Cont = false
		d.Blocks = append(d.Blocks, b)
	}
	d.Warnings = s.Warnings()
	return d, nil
}
