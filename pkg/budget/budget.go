// Package budget keeps results within the inline limit: an oversized
// output moves to a file under MCODE_HOME/tool-outputs and a receipt takes
// its place.
package budget

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

const (
	// DirName is the folder under MCODE_HOME for archived results.
	DirName = "tool-outputs"
	// receiptPreviewBytes is the head and the tail shown in a receipt.
	receiptPreviewBytes = 1024
	// fallbackPreviewBytes is the whole preview when the archive fails.
	fallbackPreviewBytes = 2048
)

// Budget keeps a result within the inline limit by moving its text to a
// file under Dir and leaving a receipt in its place.
type Budget struct {
	MaxInlineBytes int
	Dir            string
	Now            func() time.Time
}

// Apply keeps the printed envelope within the inline limit. An envelope
// whose JSON is over it is archived whole (its output text, and the
// envelope with its result as JSON); what stays inline is a receipt in
// output and, in result, the scalar fields and counts with the path of
// the JSON archive. Media stay in the result (a read image is bounded by
// read's own limits), so an envelope that is large only because of them
// is left as it is.
func (b Budget) Apply(env *tool.Envelope) {
	if b.MaxInlineBytes <= 0 {
		return
	}
	data, err := env.Marshal(false)
	if err != nil || len(data) <= b.MaxInlineBytes {
		return
	}
	text := env.OutputText()
	// A text no longer than a receipt's preview would come back whole in
	// the receipt: archiving it cannot shrink the result.
	bigText := len(text) > 2*receiptPreviewBytes
	summary, omitted := summarize(env.Result)
	if !bigText && len(omitted) == 0 {
		return
	}
	envPath := ""
	if len(omitted) > 0 {
		p, err := b.write(env.Tool, ".json", data)
		if err != nil {
			// Without the archive the dropped fields would be lost: keep
			// the result whole and shrink the text only.
			omitted = nil
		} else {
			envPath = p
		}
	}
	if bigText {
		b.archiveText(env, text)
	}
	if len(omitted) > 0 {
		summary[ResultArchiveKey] = envPath
		summary[ResultOmittedKey] = omitted
		env.Result = summary
		env.Truncated = true
		if env.Continuation == nil {
			env.Continuation = &tool.Continuation{Hint: fmt.Sprintf("the whole result is in %s (JSON); the lists left out here are counted in result.omitted", envPath)}
		}
	}
}

// Keys a budgeted result gains.
const (
	// ResultArchiveKey names the JSON file that holds the whole envelope.
	ResultArchiveKey = "archive"
	// ResultOmittedKey counts the entries of each list left out.
	ResultOmittedKey = "omitted"
)

// archiveText moves an oversized output text to a file and leaves a
// receipt in its place, or a head and tail when it cannot be archived.
func (b Budget) archiveText(env *tool.Envelope, text string) {
	arch, err := b.archive(env.Tool, text)
	if err != nil {
		preview := headTail(text, fallbackPreviewBytes/2)
		note := fmt.Sprintf("[mcode: output was %d bytes, over the %d KiB inline limit, and could not be archived (%v); showing its head and tail only]\n",
			len(text), b.MaxInlineBytes/1024, err)
		out := note + preview
		env.Output = &out
		env.Truncated = true
		if env.Continuation == nil {
			env.Continuation = &tool.Continuation{Hint: "re-run with a narrower request (a smaller --limit or a range), or free space in MCODE_HOME so the result can be archived"}
		}
		return
	}
	receipt := Receipt(arch, text)
	env.Output = &receipt
	env.Archived = arch
	env.Truncated = true
	if env.Continuation == nil {
		env.Continuation = &tool.Continuation{Hint: fmt.Sprintf("the full output is in %s: search it with mcode grep, read it in ranges with mcode read --offset N --limit M", arch.Path)}
	}
}

// summarize keeps a result's scalar fields, at any depth of objects, and
// counts the entries of the lists it leaves out, by their path.
func summarize(result any) (map[string]any, map[string]int) {
	summary := map[string]any{}
	omitted := map[string]int{}
	if result == nil {
		return summary, omitted
	}
	data, err := json.Marshal(result)
	if err != nil {
		return summary, omitted
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return summary, omitted
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if list, ok := v.([]any); ok {
			omitted["result"] = len(list)
		}
		return summary, omitted
	}
	keepScalars(obj, "", omitted)
	return obj, omitted
}

func keepScalars(obj map[string]any, prefix string, omitted map[string]int) {
	for k, v := range obj {
		switch v := v.(type) {
		case []any:
			if len(v) > 0 {
				omitted[prefix+k] = len(v)
			}
			delete(obj, k)
		case map[string]any:
			keepScalars(v, prefix+k+".", omitted)
		}
	}
}

// write stores data in a new file of Dir named after the tool and the
// time, never over another.
func (b Budget) write(toolName, ext string, data []byte) (string, error) {
	if b.Dir == "" {
		return "", errors.New("no data directory")
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	prefix := fmt.Sprintf("%s-%s-", safeName(toolName), now().UTC().Format("20060102T150405Z"))
	return fsutil.CreateUnique(b.Dir, prefix, ext, data)
}

func (b Budget) archive(toolName, text string) (*tool.Archived, error) {
	path, err := b.write(toolName, ".txt", []byte(text))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(text))
	return &tool.Archived{Path: path, Bytes: len(text), Lines: countLines(text), SHA256: hex.EncodeToString(sum[:])}, nil
}

// Receipt is the text that replaces an archived output.
func Receipt(a *tool.Archived, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Output too large to show inline: %d bytes, %d lines (sha256 %s).\n", a.Bytes, a.Lines, a.SHA256)
	fmt.Fprintf(&b, "Saved in full to: %s\n", a.Path)
	b.WriteString("Do not print it whole. Search it, then read the parts you need:\n")
	fmt.Fprintf(&b, "  mcode grep 'PATTERN' %s --mode content\n", fsutil.ShellQuote(a.Path))
	fmt.Fprintf(&b, "  mcode read %s --offset 1 --limit 200\n", fsutil.ShellQuote(a.Path))
	b.WriteString("Preview (head and tail):\n")
	b.WriteString(headTail(text, receiptPreviewBytes))
	return b.String()
}

// headTail keeps up to n bytes from each end of s, cut at line or rune
// boundaries, with a marker that counts what was left out.
func headTail(s string, n int) string {
	if len(s) <= 2*n {
		return s
	}
	head := s[:n]
	if i := strings.LastIndexByte(head, '\n'); i > n/2 {
		head = head[:i+1]
	}
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	tail := s[len(s)-n:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < n/2 {
		tail = tail[i+1:]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := s[len(head) : len(s)-len(tail)]
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return fmt.Sprintf("%s[… %d lines, %d bytes omitted …]\n%s", head, strings.Count(omitted, "\n"), len(omitted), tail)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// ArchiveInfo describes one archived result.
type ArchiveInfo struct {
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	Bytes    int64     `json:"bytes"`
	Modified time.Time `json:"modified"`
}

// ListArchives lists the archives in dir, newest first. A missing dir is
// an empty list.
func ListArchives(dir string) ([]ArchiveInfo, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []ArchiveInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []ArchiveInfo{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !(strings.HasSuffix(e.Name(), ".txt") || strings.HasSuffix(e.Name(), ".json")) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, ArchiveInfo{
			Path: filepath.Join(dir, e.Name()), Name: e.Name(),
			Bytes: info.Size(), Modified: info.ModTime().UTC(),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].Name > out[j].Name
	})
	return out, nil
}
