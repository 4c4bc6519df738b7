package read

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of a notebook output shown under its cell.
const (
	NotebookOutputMaxChars = 2000
	NotebookOutputMaxLines = 40
)

// notebookFile is an .ipynb document, nbformat 4 (3 is read as far as
// its cells go).
type notebookFile struct {
	Cells      *[]notebookCell `json:"cells"`
	Worksheets []struct {
		Cells []notebookCell `json:"cells"`
	} `json:"worksheets"` // nbformat 3
	Metadata struct {
		Kernelspec struct {
			Language    string `json:"language"`
			DisplayName string `json:"display_name"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
	Nbformat      int `json:"nbformat"`
	NbformatMinor int `json:"nbformat_minor"`
}

type notebookCell struct {
	CellType       string           `json:"cell_type"`
	ID             string           `json:"id"`
	Source         multiline        `json:"source"`
	Input          multiline        `json:"input"` // nbformat 3
	ExecutionCount *int             `json:"execution_count"`
	PromptNumber   *int             `json:"prompt_number"` // nbformat 3
	Outputs        []notebookOutput `json:"outputs"`
}

type notebookOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`   // stream: stdout, stderr
	Stream     string                     `json:"stream"` // nbformat 3's name
	Text       multiline                  `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	Ename      string                     `json:"ename"`
	Evalue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

// multiline is a notebook string: one string, or a list of lines.
type multiline string

func (m *multiline) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(data, &parts); err != nil {
		// A type error, so that the decoder names the field it is in.
		return &json.UnmarshalTypeError{Value: jsonKind(data), Type: reflect.TypeFor[multiline]()}
	}
	*m = multiline(strings.Join(parts, ""))
	return nil
}

// notebook shows numbered cells with their outputs summarised; offset and
// limit count cells.
func (r *reading) notebook(ctx context.Context) (*tool.Response, error) {
	r.ignorePaging("notebook", true, false)
	r.result.Kind = KindNotebook
	r.result.MIME = "application/x-ipynb+json"
	data, err := r.readAll("notebook", MaxNotebookBytes)
	if err != nil {
		return nil, err
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeCorruptFile,
			Message: fmt.Sprintf("%s is not a valid Jupyter notebook: %v", r.display, err),
			Hint:    "the file may be damaged or not a notebook; look at its raw JSON with bash, e.g. head -c 2000"}
	}
	cells := nb.cells()
	total := len(cells)
	offset, limit := max(r.params.Offset, 1), r.params.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if offset > max(total, 1) {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("offset %d is past the end: %s has %d %s", offset, r.display, total, plural(total, "cell")),
			Hint:    fmt.Sprintf("for a notebook, offset counts cells: use 1 to %d", max(total, 1))}
	}
	lang := nb.language()
	r.result.Language = lang

	var out strings.Builder
	fmt.Fprintf(&out, "%s: Jupyter notebook", r.display)
	var about []string
	if lang != "" {
		about = append(about, lang)
	}
	if nb.Nbformat > 0 {
		about = append(about, fmt.Sprintf("nbformat %d.%d", nb.Nbformat, nb.NbformatMinor))
	}
	if len(about) > 0 {
		fmt.Fprintf(&out, " (%s)", strings.Join(about, ", "))
	}
	fmt.Fprintf(&out, ", %d %s.\n", total, plural(total, "cell"))

	end := offset - 1
	capped := false
	for i := offset; i <= total && i-offset < limit; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		block := renderCell(i, cells[i-1], lang)
		if out.Len()+len(block) > MaxOutputBytes {
			capped = true
			if i > offset {
				break
			}
			const cutMark = "\n[… cell cut at the output cap]\n"
			block = cutToBytes(block, MaxOutputBytes-out.Len()-len(cutMark)) + cutMark
			out.WriteString(block)
			end = i
			break
		}
		out.WriteString(block)
		end = i
	}
	r.result.Cells = &Range{Start: offset, End: end, Total: total}
	if total == 0 {
		r.result.Cells.Start = 0
	}
	resp := &tool.Response{Output: out.String(), Result: r.result}
	if end < total {
		hint := fmt.Sprintf("more cells follow: mcode read %s --offset %d", pathArg(r.display), end+1)
		if r.params.Limit != 0 {
			hint += " --limit " + strconv.Itoa(r.params.Limit)
		}
		if capped {
			hint = fmt.Sprintf("the output reached its %d KiB cap after cell %d; %s", MaxOutputBytes/1024, end, hint)
		}
		hint = fmt.Sprintf("%s of %d; %s", span("cell", offset, end), total, hint)
		resp.Continuation = &tool.Continuation{NextOffset: end + 1, Hint: hint}
		resp.Truncated = capped || r.params.Limit == 0
	}
	return resp, nil
}

func parseNotebook(data []byte) (*notebookFile, error) {
	var nb notebookFile
	if err := json.Unmarshal(data, &nb); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
			return nil, fmt.Errorf("not JSON: %v (line %d)", se, line)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, fmt.Errorf("the document is a JSON %s, not an object", te.Value)
		}
		if errors.As(err, &te) {
			return nil, fmt.Errorf("field %q has the wrong type (%s)", te.Field, te.Value)
		}
		return nil, err
	}
	if nb.Cells == nil && len(nb.Worksheets) == 0 {
		return nil, errors.New("no \"cells\" list")
	}
	return &nb, nil
}

func (nb *notebookFile) cells() []notebookCell {
	if nb.Cells != nil {
		return *nb.Cells
	}
	var all []notebookCell
	for _, ws := range nb.Worksheets {
		all = append(all, ws.Cells...)
	}
	return all
}

func (nb *notebookFile) language() string {
	if l := nb.Metadata.LanguageInfo.Name; l != "" {
		return l
	}
	return nb.Metadata.Kernelspec.Language
}

// renderCell writes one cell: a header with number, type, id and
// execution count, its source, then its outputs summarised.
func renderCell(n int, c notebookCell, lang string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n── cell %d · %s", n, cmp.Or(c.CellType, "unknown"))
	if c.ID != "" {
		fmt.Fprintf(&b, " · id %s", c.ID)
	}
	if count := cmp.Or(c.ExecutionCount, c.PromptNumber); count != nil {
		fmt.Fprintf(&b, " · [%d]", *count)
	}
	b.WriteString(" ──\n")
	src := string(c.Source)
	if src == "" {
		src = string(c.Input)
	}
	if src = strings.TrimRight(src, "\n"); src != "" {
		b.WriteString(src)
		b.WriteByte('\n')
	}
	for _, o := range c.Outputs {
		b.WriteString(renderOutput(o))
	}
	return b.String()
}

// renderOutput summarises one output: text clipped, images and other
// data as MIME type and size.
func renderOutput(o notebookOutput) string {
	var b strings.Builder
	switch o.OutputType {
	case "stream":
		fmt.Fprintf(&b, "→ %s:\n%s", cmp.Or(o.Name, o.Stream, "stream"), clipOutput(string(o.Text)))
	case "error", "pyerr":
		fmt.Fprintf(&b, "→ error: %s: %s\n", o.Ename, o.Evalue)
		if len(o.Traceback) > 0 {
			b.WriteString(clipOutput(strings.Join(o.Traceback, "\n")))
		}
	default: // execute_result, display_data (pyout in nbformat 3)
		data := o.Data
		if len(data) == 0 && o.Text != "" {
			data = map[string]json.RawMessage{"text/plain": mustJSON(string(o.Text))}
		}
		mimes := make([]string, 0, len(data))
		for m := range data {
			mimes = append(mimes, m)
		}
		slices.Sort(mimes)
		textShown := false
		for _, m := range mimes {
			if strings.HasPrefix(m, "image/") {
				fmt.Fprintf(&b, "→ %s\n", describeImageData(m, data[m]))
			}
		}
		for _, pref := range textMIMEs {
			if raw, ok := data[pref]; ok {
				var s multiline
				if json.Unmarshal(raw, &s) != nil {
					s = multiline(raw) // application/json is an object
				}
				fmt.Fprintf(&b, "→ %s:\n%s", pref, clipOutput(string(s)))
				textShown = true
				break
			}
		}
		for _, m := range mimes {
			if !strings.HasPrefix(m, "image/") && (!textShown || !slices.Contains(textMIMEs, m)) {
				fmt.Fprintf(&b, "→ [%s, %s]\n", m, fsutil.HumanBytes(int64(len(data[m]))))
			}
		}
	}
	return b.String()
}

// textMIMEs are the output forms shown as text, in order of preference:
// the first one an output has is shown, and the others are not listed.
var textMIMEs = []string{"text/plain", "text/markdown", "text/html", "application/json"}

// jsonKind names the kind of a JSON value as encoding/json's type errors
// do.
func jsonKind(data []byte) string {
	switch data[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

func mustJSON(s string) json.RawMessage {
	data, _ := json.Marshal(s)
	return data
}

// describeImageData names an embedded image by type, pixel size and bytes.
func describeImageData(mime string, raw json.RawMessage) string {
	var s multiline
	if json.Unmarshal(raw, &s) != nil {
		return fmt.Sprintf("[%s]", mime)
	}
	enc := strings.Join(strings.Fields(string(s)), "") // base64 may be wrapped
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		if mime == "image/svg+xml" {
			return fmt.Sprintf("[%s, %s]", mime, fsutil.HumanBytes(int64(len(s))))
		}
		return fmt.Sprintf("[%s, %s of data that is not base64]", mime, fsutil.HumanBytes(int64(len(enc))))
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		return fmt.Sprintf("[%s %d×%d, %s]", mime, cfg.Width, cfg.Height, fsutil.HumanBytes(int64(len(data))))
	}
	return fmt.Sprintf("[%s, %s]", mime, fsutil.HumanBytes(int64(len(data))))
}

// clipOutput keeps the head of an output text: at most
// NotebookOutputMaxLines lines and NotebookOutputMaxChars characters, as a
// terminal would show it (colours removed, progress bars at their last
// frame), and says how much was left out.
func clipOutput(s string) string {
	s = strings.TrimRight(textenc.CleanTerminal([]byte(s)), "\n")
	if s == "" {
		return ""
	}
	lines := strings.Count(s, "\n") + 1
	keep := s
	if lines > NotebookOutputMaxLines {
		idx := 0
		for range NotebookOutputMaxLines {
			idx += strings.IndexByte(keep[idx:], '\n') + 1
		}
		keep = keep[:idx-1]
	}
	if utf8.RuneCountInString(keep) > NotebookOutputMaxChars {
		n := 0
		for i := range keep {
			if n == NotebookOutputMaxChars {
				keep = keep[:i]
				break
			}
			n++
		}
	}
	if len(keep) == len(s) {
		return s + "\n"
	}
	rest := s[len(keep):]
	return fmt.Sprintf("%s\n[… %d more %s, %d more characters]\n", keep,
		strings.Count(rest, "\n"), plural(strings.Count(rest, "\n"), "line"), utf8.RuneCountInString(rest))
}
