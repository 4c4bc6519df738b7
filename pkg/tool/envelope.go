package tool

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Response is what a tool hands back: the text a model reads and the
// structured fields a program reads. A tool may return a Response together
// with an error (bash: the output of a command that exited non-zero).
type Response struct {
	Output       string
	Result       any
	Truncated    bool
	Continuation *Continuation
	// Notices is the end of Output that is about the text rather than
	// part of it (a search's summary, bash's "(no output)", notes): -o
	// text prints Output without it on stdout and it on stderr.
	Notices string
	// Shown says the text was already shown to a person as it came
	// (Env.Live), so printing it again would repeat it.
	Shown bool
	// Media are images (and later other media) the caller can show as
	// such: mcp serve sends them as image content.
	Media []Media
}

// Media is one piece of binary content of a response, such as an image
// read sent to the model.
type Media struct {
	Type     string `json:"type"` // "image"
	MIMEType string `json:"mime_type"`
	Data     string `json:"data"` // base64
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
}

// Continuation tells the reader how to get what was cut.
type Continuation struct {
	NextOffset int `json:"next_offset,omitempty"`
	// NextColumn is where the rest of a cut line starts (read's column,
	// 1-based), with NextOffset naming the line.
	NextColumn     int    `json:"next_column,omitempty"`
	FullOutputPath string `json:"full_output_path,omitempty"`
	Hint           string `json:"hint"`
}

// Archived describes a result text that the output budget moved to a file.
type Archived struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Lines  int    `json:"lines"`
	SHA256 string `json:"sha256"`
}

// Envelope is the one JSON document every subcommand prints. Every key is
// always present (null when empty), in success and failure alike.
type Envelope struct {
	OK           bool          `json:"ok"`
	Tool         string        `json:"tool"`
	Output       *string       `json:"output"`
	Result       any           `json:"result"`
	Truncated    bool          `json:"truncated"`
	Continuation *Continuation `json:"continuation"`
	Archived     *Archived     `json:"archived"`
	Error        *Error        `json:"error"`
	DurationMS   int64         `json:"duration_ms"`
	// Notices, as in Response: the end of Output that -o text sends to
	// stderr.
	Notices string `json:"-"`
	// Shown, as in Response.
	Shown bool `json:"-"`
	// Media travel beside the printed document: a tool that has them
	// also describes them in its result (read's result.media).
	Media []Media `json:"-"`
}

// NewEnvelope wraps a tool's response and error.
func NewEnvelope(name string, resp *Response, err error) *Envelope {
	env := &Envelope{Tool: name}
	if resp != nil {
		if resp.Output != "" {
			out := resp.Output
			env.Output = &out
		}
		env.Result = resp.Result
		env.Truncated = resp.Truncated
		env.Continuation = resp.Continuation
		env.Media = resp.Media
		env.Shown = resp.Shown
		if strings.HasSuffix(resp.Output, resp.Notices) {
			env.Notices = resp.Notices
		}
	}
	env.Error = AsError(err)
	env.OK = env.Error == nil
	return env
}

// Text is the output without its notices: what -o text prints on stdout.
func (e *Envelope) Text() string {
	return strings.TrimSuffix(e.OutputText(), e.Notices)
}

// OutputText is the output, or "" when there is none.
func (e *Envelope) OutputText() string {
	if e.Output == nil {
		return ""
	}
	return *e.Output
}

// ExitCode is the process exit status for this envelope.
func (e *Envelope) ExitCode() int {
	if e.Error == nil {
		return ExitOK
	}
	return e.Error.ExitCode()
}

// Marshal encodes the envelope without HTML escaping, compact or indented,
// with a trailing newline.
func (e *Envelope) Marshal(indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
