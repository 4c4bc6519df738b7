// Package guide writes SKILL.md, the Agent Skills guide that teaches a
// model to use mcode from bash, from the tools this agent and role may
// call, so it is never stale.
package guide

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tmpl"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the skill's name, and the folder --install writes it in.
const Name = "mcode"

// FileName is the file of a skill in the Agent Skills format.
const FileName = "SKILL.md"

// description is the front matter's description: what the skill is and
// when to use it (Agent Skills: at most 1024 characters).
const description = "Use the mcode CLI from bash to read, search, write, edit and delete files and to run commands and background tasks, each call printing one JSON result with limited output, stable error codes and exit codes. Use it instead of cat, grep, find, sed -i and rm in a coding task."

//go:embed guide.md
var source string

// page is parsed on first use: other commands do not pay for it.
var page = sync.OnceValues(func() (*tmpl.Template, error) {
	return tmpl.Parse(FileName, source)
})

// Entry is one tool as the guide lists it.
type Entry struct {
	Name, Usage, Summary string
	Mode                 tool.Mode
}

// Data is what the guide is rendered from.
type Data struct {
	Agent, Role  string
	Tools        []Entry
	MaxInlineKiB int
	// AutoBackground is when a bash call moves to the background from
	// the command line, AutoBackgroundServe under mcp serve.
	AutoBackground, AutoBackgroundServe time.Duration
	// MCPConfig shows how MCP servers are declared in the config.
	MCPConfig string
	// Web: the agent may fetch web pages (web_fetch), and the guide says
	// how, and where web search comes from.
	Web bool
}

// Render writes the guide.
func Render(d Data) (string, error) {
	tpl, err := page()
	if err != nil {
		return "", err
	}
	var edit, patch bool
	for _, t := range d.Tools {
		edit = edit || t.Name == "edit"
		patch = patch || t.Name == "apply_patch"
	}
	return tpl.Execute(struct {
		Data
		Name, Description    string
		ExitCodes            []tool.ExitInfo
		AutoBackgroundS      int
		AutoBackgroundServeS int
		ExitBackgrounded     int
		// EditAndPatch: both ways of changing files are there to choose.
		EditAndPatch bool
	}{d, Name, description, tool.ExitCodes, int(d.AutoBackground.Seconds()), int(d.AutoBackgroundServe.Seconds()), tool.ExitBackgrounded, edit && patch})
}

// Summary is the first sentence of a tool's description, on one line.
func Summary(desc string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(desc), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	for i := 0; i < len(para); i++ {
		if para[i] == '.' && (i+1 == len(para) || para[i+1] == ' ') {
			return para[:i+1]
		}
	}
	return para
}

// Install writes the guide to dir/mcode/SKILL.md atomically and returns
// the file's path.
func Install(dir, text string) (string, error) {
	folder := filepath.Join(dir, Name)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", folder, err)
	}
	path := filepath.Join(folder, FileName)
	if err := fsutil.WriteFileAtomic(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}
