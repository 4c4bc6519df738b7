package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Bounds of a config file. A workspace's .mcode.yaml is written by
// whoever wrote the repository: it must not hang a call (a FIFO,
// /dev/zero) nor take its memory (a huge file, anchors and aliases that
// expand a thousandfold at each level).
const (
	configMaxBytes     = 256 << 10
	configMaxDepth     = 32
	configMaxKeys      = 1000    // per mapping
	configMaxExpansion = 100_000 // values, aliases expanded
)

// readConfigBytes reads a config file that is a regular file of at most
// configMaxBytes (checked on the open file, so that a swap after the
// check changes nothing), and checks its YAML's shape: one document,
// nesting, keys per mapping and values after alias expansion bounded.
func readConfigBytes(path string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO nobody writes does not wait.
	fh, err := os.OpenFile(path, os.O_RDONLY|nonblockFlag, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, hostileConfig(path, fmt.Sprintf("is not a regular file (%s)", fileKind(st.Mode())), "point --config / MCODE_CONFIG at a regular file, or remove it")
	}
	if st.Size() > configMaxBytes {
		return nil, hostileConfig(path, fmt.Sprintf("is %d bytes, over the limit of %d KiB", st.Size(), configMaxBytes>>10), "a config is a few keys: shorten the file")
	}
	data, err := io.ReadAll(io.LimitReader(fh, configMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > configMaxBytes {
		return nil, hostileConfig(path, fmt.Sprintf("grew past the limit of %d KiB while read", configMaxBytes>>10), "a config is a few keys: shorten the file")
	}
	if err := checkConfigShape(data); err != nil {
		return nil, hostileConfig(path, err.Error(), "a config is a few keys in one YAML document: simplify the file")
	}
	return data, nil
}

func hostileConfig(path, what, hint string) error {
	return &tool.Error{Code: tool.CodeUsage, Message: "config " + path + ": " + what + "; the file was not read", Hint: hint}
}

func fileKind(m fs.FileMode) string {
	if m.IsDir() {
		return "a folder"
	}
	if kind := fsutil.SpecialKind(m); kind != "" {
		return kind
	}
	return "mode " + m.String()
}

// checkConfigShape parses data as YAML nodes (yaml.v3 does not expand
// aliases there) and bounds the tree: one document, nesting, keys per
// mapping, and the count of values once every alias is expanded (counted
// without expanding, each node once).
func checkConfigShape(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil // empty, or a YAML error the reader says with its line
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return fmt.Errorf("holds more than one YAML document (a line `---` after the first): only one is read, so the file is refused rather than half-read")
	}
	sizes := map[*yaml.Node]int{}
	var walk func(n *yaml.Node, depth int) (int, error)
	walk = func(n *yaml.Node, depth int) (int, error) {
		if n == nil {
			return 0, nil
		}
		if depth > configMaxDepth {
			return 0, fmt.Errorf("nests deeper than %d levels", configMaxDepth)
		}
		if s, ok := sizes[n]; ok {
			return s, nil
		}
		sizes[n] = 0 // a cycle counts nothing more
		if n.Kind == yaml.MappingNode && len(n.Content)/2 > configMaxKeys {
			return 0, fmt.Errorf("line %d: a mapping holds %d keys, over the limit of %d", n.Line, len(n.Content)/2, configMaxKeys)
		}
		total := 1
		children := n.Content
		if n.Kind == yaml.AliasNode {
			children = []*yaml.Node{n.Alias}
			total = 0
		}
		for _, c := range children {
			s, err := walk(c, depth+1)
			if err != nil {
				return 0, err
			}
			total += s
			if total > configMaxExpansion {
				return 0, fmt.Errorf("line %d: expands to more than %d values once its aliases (*name) are expanded", n.Line, configMaxExpansion)
			}
		}
		sizes[n] = total
		return total, nil
	}
	_, err := walk(&doc, 0)
	return err
}
