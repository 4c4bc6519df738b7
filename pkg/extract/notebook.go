package extract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// A notebook as extract needs it: cells in order (nbformat 4, and the
// worksheets of nbformat 3), their sources and their text outputs. JSON
// is a tree, not a graph, so its walk has no cycles to fear; the decoder
// bounds its depth itself.
type nbFile struct {
	Cells      []nbCell `json:"cells"`
	Worksheets []struct {
		Cells []nbCell `json:"cells"`
	} `json:"worksheets"`
	Metadata struct {
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

type nbCell struct {
	Type    string     `json:"cell_type"`
	Source  nbText     `json:"source"`
	Input   nbText     `json:"input"`
	Outputs []nbOutput `json:"outputs"`
}

type nbOutput struct {
	Type   string            `json:"output_type"`
	Text   nbText            `json:"text"`
	Data   map[string]nbText `json:"data"`
	Ename  string            `json:"ename"`
	Evalue string            `json:"evalue"`
}

// nbText is a string or a list of lines; anything else is empty.
type nbText string

func (t *nbText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = nbText(s)
		return nil
	}
	var parts []string
	if json.Unmarshal(b, &parts) == nil {
		*t = nbText(strings.Join(parts, ""))
	}
	return nil
}

func (x *extraction) notebook() error {
	x.result.Kind = KindNotebook
	data, err := x.load()
	if err != nil {
		return err
	}
	var nb nbFile
	if err := json.Unmarshal(data, &nb); err != nil {
		return &tool.Error{Code: tool.CodeCorruptFile,
			Message: fmt.Sprintf("%s is not a readable notebook: %v", x.display, err),
			Hint:    "the file may be damaged or truncated; check it with bash (python3 -m json.tool)"}
	}
	cells := nb.Cells
	for _, ws := range nb.Worksheets {
		cells = append(cells, ws.Cells...)
	}
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = nb.Metadata.Kernelspec.Language
	}
	n := len(cells)
	x.result.Cells = &n
	var b strings.Builder
	block := func(s string) {
		s = strings.TrimRight(s, "\n")
		if strings.TrimSpace(s) == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s + "\n")
	}
	for _, c := range cells {
		src := string(c.Source)
		if src == "" {
			src = string(c.Input)
		}
		switch c.Type {
		case "markdown":
			block(src)
		case "code":
			block(fence(lang, src))
			for _, o := range c.Outputs {
				block(fence("", outputText(o)))
			}
		default:
			block(src)
		}
	}
	x.text = x.shape(b.String())
	return nil
}

func outputText(o nbOutput) string {
	switch {
	case o.Type == "error":
		return o.Ename + ": " + o.Evalue
	case o.Text != "":
		return string(o.Text)
	case o.Data["text/plain"] != "":
		return string(o.Data["text/plain"])
	}
	return ""
}

// fence wraps code in a fence longer than any backtick run inside it.
func fence(lang, code string) string {
	if strings.TrimSpace(code) == "" {
		return ""
	}
	marks := "```"
	for strings.Contains(code, marks) {
		marks += "`"
	}
	return marks + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + marks
}
