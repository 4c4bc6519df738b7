// Package tiers keeps which extension-tier tools a session has enabled
// (docs/connector.md, "Extension tier"): such a tool is listed as one line
// of a catalogue until enable_tool enables it, and only then may it be
// called. The state is per session (MCODE_SESSION, else per workspace
// root) under MCODE_HOME/sessions/, shared safely between processes.
package tiers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Where the state lives.
const (
	SessionVar  = "MCODE_SESSION"
	SessionsDir = "sessions"
	fileName    = "enabled-tools.json"
)

// state is the file: the tools enabled in this session.
type state struct {
	Session string    `json:"session"`
	Updated time.Time `json:"updated"`
	Tools   []string  `json:"tools"` // normalized names, sorted
}

// Session names the caller's session: MCODE_SESSION, else the
// workspace root.
func Session(env *tool.Env) string {
	if s := env.LookupEnv(SessionVar); s != "" {
		return s
	}
	return "root:" + env.Root
}

// path is the session's state file; the folder is named by a digest, so
// any session id is a safe name.
func path(env *tool.Env) string {
	sum := sha256.Sum256([]byte(Session(env)))
	return filepath.Join(env.DataDir, SessionsDir, hex.EncodeToString(sum[:8]), fileName)
}

func load(p string) (state, error) {
	var st state
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

// Enabled lists the tools the session has enabled (normalized names).
func Enabled(env *tool.Env) []string {
	st, err := load(path(env))
	if err != nil {
		return nil
	}
	return st.Tools
}

// Listed says whether a session sees a tool whole: every core tool, and
// an extension-tier tool once the session has enabled it. Until then an
// extension tool is one line of tools list's catalogue, and a call of it
// is refused (Permit). This is the extension-tier rule; everything else
// asks here.
func Listed(env *tool.Env, t *tool.Tool) bool {
	return t.Tier != tool.Extension || IsEnabled(env, t.Name)
}

// Permit refuses the call of an extension-tier tool the session has not
// enabled, naming the call that enables it.
func Permit(env *tool.Env, t *tool.Tool) error {
	if Listed(env, t) {
		return nil
	}
	return &tool.Error{Code: tool.CodeDenied,
		Message: fmt.Sprintf("%s is an extension-tier tool and is not enabled in this session", t.Name),
		Hint:    fmt.Sprintf("enable it first: mcode call enable_tool --args '{\"name\": \"%s\"}'", t.Name)}
}

// IsEnabled says whether the session enabled name.
func IsEnabled(env *tool.Env, name string) bool {
	return slices.Contains(Enabled(env), tool.NormalizeName(name))
}

// Enable adds name to the session's enabled tools; it reports whether
// it was enabled before.
func Enable(env *tool.Env, name string) (already bool, err error) {
	p := path(env)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	lock := flock.New(p + ".lock")
	if err := lock.Lock(); err != nil {
		return false, err
	}
	defer lock.Unlock()
	st, err := load(p)
	if err != nil {
		return false, err
	}
	key := tool.NormalizeName(name)
	if slices.Contains(st.Tools, key) {
		return true, nil
	}
	now := time.Now
	if env.Now != nil {
		now = env.Now
	}
	st.Session, st.Updated = Session(env), now().UTC()
	st.Tools = append(st.Tools, key)
	slices.Sort(st.Tools)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return false, err
	}
	return false, fsutil.WriteFileAtomic(p, data, 0o644)
}
