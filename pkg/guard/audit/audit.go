// Package audit appends one JSON line per guarded call to
// MCODE_HOME/audit.jsonl and reads them back. Each line is written with a
// single write under an exclusive lock, so that lines from concurrent
// processes never tear or interleave; past the size limit the file is
// rotated to audit.jsonl.1.
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/guard/redact"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// FileName is the log under MCODE_HOME.
const FileName = "audit.jsonl"

// MaxArgsBytes caps the arguments kept in one line.
const MaxArgsBytes = 8 << 10

// Entry is one line.
type Entry struct {
	Time       time.Time       `json:"time"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Agent      string          `json:"agent"`
	Role       string          `json:"role,omitempty"`
	Decision   string          `json:"decision"`
	Source     string          `json:"source"`
	Rule       string          `json:"rule,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	ApprovalID string          `json:"approval_id,omitempty"`
	Status     string          `json:"status"` // ok, or the error code
	ExitCode   int             `json:"exit_code"`
	DurationMS int64           `json:"duration_ms"`
	// PolicyIgnored are the loosenings the caller asked for and did not
	// get.
	PolicyIgnored []config.Ignored `json:"policy_ignored,omitempty"`
}

// Log is the audit file.
type Log struct {
	Path   string
	MaxMiB int
	Now    func() time.Time
	// Errors, when set, hears about lines that could not be written (the
	// call's result is never changed by its audit).
	Errors func(error)

	mu       sync.Mutex
	lock     *flock.Flock
	file     *os.File // open for appending, while it is the file at Path
	fileInfo os.FileInfo
}

// Open returns the log under an MCODE_HOME.
func Open(dataDir string, maxMiB int, now func() time.Time) *Log {
	if now == nil {
		now = time.Now
	}
	return &Log{Path: filepath.Join(dataDir, FileName), MaxMiB: maxMiB, Now: now}
}

// Record implements dispatch.Auditor.
func (l *Log) Record(c *dispatch.Call, d dispatch.Decision, env *tool.Envelope) {
	e := Entry{
		Time: l.Now().UTC(), Tool: c.Tool, Args: redact.Builtin().Preview(c.Args, MaxArgsBytes),
		Agent: c.Profile.Agent, Role: c.Profile.Role,
		Decision: string(d.Verdict), Source: d.Source, Rule: d.Rule,
		Reason: redact.Builtin().String(d.Reason), ApprovalID: d.ApprovalID,
		Status: "ok", ExitCode: env.ExitCode(), DurationMS: env.DurationMS,
		PolicyIgnored: c.PolicyIgnored,
	}
	if c.Def != nil {
		e.Tool = c.Def.Name
	}
	if env.Error != nil {
		e.Status = string(env.Error.Code)
	}
	if err := l.Append(e); err != nil && l.Errors != nil {
		l.Errors(err)
	}
}

// Append writes one line.
func (l *Log) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		l.lock = flock.New(l.Path + ".lock")
	}
	if err := l.lock.Lock(); err != nil {
		return err
	}
	defer l.lock.Unlock()
	f, err := l.current(int64(len(line)))
	if err != nil {
		return err
	}
	if _, err := f.Write(line); err != nil {
		l.closeFile()
		return err
	}
	return nil
}

// current is the log file to append a line of size bytes to, rotated
// first when the line would take it past the limit. It stays open between
// lines (a server appends one for every call), and is opened again when
// another process rotated or removed it. Call it under the lock.
func (l *Log) current(size int64) (*os.File, error) {
	fi, err := os.Stat(l.Path)
	if err == nil && l.MaxMiB > 0 && fi.Size()+size > int64(l.MaxMiB)<<20 {
		if err := os.Rename(l.Path, l.Path+".1"); err != nil {
			return nil, err
		}
		fi = nil
	}
	if l.file != nil && (fi == nil || !os.SameFile(fi, l.fileInfo)) {
		l.closeFile()
	}
	if l.file == nil {
		f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if l.fileInfo, err = f.Stat(); err != nil {
			f.Close()
			return nil, err
		}
		l.file = f
	}
	return l.file, nil
}

func (l *Log) closeFile() {
	if l.file != nil {
		_ = l.file.Close()
		l.file, l.fileInfo = nil, nil
	}
}

// Filter selects entries.
type Filter struct {
	Since    time.Time
	Tool     string
	Decision string
	Limit    int // the newest Limit; 0: all
}

// Read returns the entries that pass the filter, oldest first, from the
// rotated file and the current one. A line that does not decode (a disk
// that filled mid-write) is counted, not fatal.
func (l *Log) Read(f Filter) (entries []Entry, bad int, err error) {
	for _, p := range []string{l.Path + ".1", l.Path} {
		file, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, bad, err
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			var e Entry
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				bad++
				continue
			}
			if (!f.Since.IsZero() && e.Time.Before(f.Since)) || (f.Tool != "" && e.Tool != f.Tool) || (f.Decision != "" && e.Decision != f.Decision) {
				continue
			}
			entries = append(entries, e)
		}
		serr := sc.Err()
		file.Close()
		if serr != nil {
			return nil, bad, serr
		}
	}
	if f.Limit > 0 && len(entries) > f.Limit {
		entries = entries[len(entries)-f.Limit:]
	}
	return entries, bad, nil
}
